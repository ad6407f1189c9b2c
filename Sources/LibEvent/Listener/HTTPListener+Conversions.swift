import CEvent
import HTTP

/// evhttp's C values as the HTTP target's Swift values, and back.
extension HTTPListener {
    /// The request target in origin form: the absolute form (`http://host/path?query`, RFC 9112 3.2.2) as
    /// its path and query, which evhttp has parsed; with it, the absolute form's authority (its userinfo kept,
    /// so that the `Host` check refuses it), which stands for the request's `Host` (RFC 9112 3.2.2: the
    /// target's host wins over the field).
    static func target(_ raw: UnsafeMutablePointer<evhttp_request>) -> (target: String, authority: String?) {
        let target = evhttp_request_get_uri(raw).map { String(cString: $0) } ?? "/"
        guard !target.hasPrefix("/"), let uri = evhttp_request_get_evhttp_uri(raw),
            let scheme = evhttp_uri_get_scheme(uri).map({ String(cString: $0).lowercased() }),
            scheme == "http" || scheme == "https"
        else { return (target, nil) }
        let path = evhttp_uri_get_path(uri).map { String(cString: $0) } ?? ""
        let query = evhttp_uri_get_query(uri).map { "?" + String(cString: $0) } ?? ""
        let userinfo = evhttp_uri_get_userinfo(uri).map { String(cString: $0) + "@" } ?? ""
        let host = evhttp_uri_get_host(uri).map { String(cString: $0) } ?? ""
        let port = evhttp_uri_get_port(uri)
        return ((path.isEmpty ? "/" : path) + query, userinfo + host + (port >= 0 ? ":\(port)" : ""))
    }

    /// The address of the client that sent `raw` (`evhttp_connection_get_peer`), as text; nil without a
    /// connection.
    static func peerAddress(_ raw: UnsafeMutablePointer<evhttp_request>) -> String? {
        guard let connection = evhttp_request_get_connection(raw) else { return nil }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        return address.map { String(cString: $0) }
    }

    static func method(_ command: evhttp_cmd_type) -> HTTPMethod? {
        switch command {
        case EVHTTP_REQ_GET: .get
        case EVHTTP_REQ_HEAD: .head
        case EVHTTP_REQ_POST: .post
        case EVHTTP_REQ_PUT: .put
        case EVHTTP_REQ_PATCH: .patch
        case EVHTTP_REQ_DELETE: .delete
        case EVHTTP_REQ_OPTIONS: .options
        default: nil
        }
    }

    static func headers(_ list: UnsafeMutablePointer<evkeyvalq>?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var node = list?.pointee.tqh_first
        while let field = node {
            if let key = field.pointee.key, let value = field.pointee.value {
                headers.add(String(cString: key), String(cString: value))
            }
            node = field.pointee.next.tqe_next
        }
        return headers
    }

    static func body(_ buffer: OpaquePointer?) -> [UInt8] {
        guard let buffer else { return [] }
        let count = evbuffer_get_length(buffer)
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            initialized = max(0, evbuffer_copyout(buffer, storage.baseAddress, count))
        }
    }

    /// `evhttp_add_header` through `withCString` (no copy of a native string, unlike the implicit conversion).
    @discardableResult
    static func addHeader(_ headers: UnsafeMutablePointer<evkeyvalq>?, _ name: String, _ value: String)
        -> Int32
    {
        name.withCString { name in value.withCString { value in evhttp_add_header(headers, name, value) } }
    }

    /// Frees what a stream's request keeps of its head once it was read (the `Request` holds a copy): the
    /// input fields but `Connection`, and the parsed target, so a held `/events` connection keeps less memory.
    ///
    /// NB: at the reply's end evhttp reads only `Connection` from the input fields (http.c,
    /// `evhttp_send_done`); the parsed target: `EvhttpInternals.releaseParsedTarget`.
    static func releaseRequestHead(_ raw: UnsafeMutablePointer<evhttp_request>) {
        let input = evhttp_request_get_input_headers(raw)
        var connection: [String] = []
        var node = input?.pointee.tqh_first
        while let field = node {
            if let key = field.pointee.key, let value = field.pointee.value,
                String(cString: key).caseInsensitiveEquals("Connection")
            {
                connection.append(String(cString: value))
            }
            node = field.pointee.next.tqe_next
        }
        evhttp_clear_headers(input)
        for value in connection { addHeader(input, "Connection", value) }
        EvhttpInternals.releaseParsedTarget(raw)
    }
}
