import CEvent
import Foundation
import Synchronization

/// One fetch by an `HTTPClient`: its current `evhttp_connection` (over a plain socket for http, an OpenSSL
/// bufferevent for https), the redirects so far and the deadline.
///
/// Owns the connection it is using and frees it when the fetch ends, times out or is cancelled (which is
/// what makes the peer see the connection closed).
package final class HTTPClientTask: @unchecked Sendable {
    // NB: @unchecked because every stored `var` is touched only on the client's loop thread;
    // `cancelled` is the one flag other threads write.

    private let client: HTTPClient
    private let completion: HTTPClient.Completion
    private var url: URL
    private var redirects = 0
    private var connection: OpaquePointer?
    private var timer: LoopTimer?
    /// The TLS host of the current connection (nil for http): what its certificate must name.
    private var tlsHost: String?
    private var lastError: evhttp_request_error?
    private var finished = false
    /// The retain that keeps the task alive while libevent holds a pointer to it.
    private var retained: Unmanaged<HTTPClientTask>?
    private let cancelled = Atomic<Bool>(false)

    init(client: HTTPClient, url: URL, completion: @escaping HTTPClient.Completion) {
        self.client = client
        self.url = url
        self.completion = completion
    }

    /// Ends the fetch from any thread: the connection is closed and the completion never runs.
    package func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        client.loop.executeNowOrLater { [self] in finish(nil) }
    }

    /// Starts the first request and the deadline; on the loop.
    func start() {
        guard !cancelled.load(ordering: .acquiring), !finished else { return }
        retained = Unmanaged.passRetained(self)
        timer = client.loop.schedule(after: client.timeout) { [self] in
            finish(.failure(.timedOut))
        }
        send(url)
    }

    private func send(_ url: URL) {
        self.url = url
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            return finish(.failure(.unsupportedURL))
        }
        guard let host = url.host, !host.isEmpty else {
            return finish(.failure(.badURL))
        }
        let secure = scheme == "https"
        let port = url.port ?? (secure ? 443 : 80)
        guard (0...65_535).contains(port) else { return finish(.failure(.badURL)) }
        // NB: brackets of an IPv6 literal are URL syntax, not part of the address (nor of the TLS name).
        let address = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        guard let connection = connect(to: address, port: UInt16(port), secure: secure) else {
            return finish(
                .failure(secure ? .secureConnectionFailed(host: address, detail: "TLS setup failed") : .cannotConnect))
        }
        self.connection = connection
        evhttp_connection_set_max_body_size(connection, client.maxResponseSize)
        evhttp_connection_set_max_headers_size(connection, 64 << 10)
        evhttp_connection_set_timeout(connection, Int32(client.timeout.rounded(.up)) + 1)
        request(on: connection, host: host)
    }

    /// A new connection to `address`: a plain socket, or for https an OpenSSL bufferevent that verifies
    /// the server's certificate for `address` before evhttp sees a byte.
    private func connect(to address: String, port: UInt16, secure: Bool) -> OpaquePointer? {
        tlsHost = secure ? address : nil
        guard secure else { return evhttp_connection_base_new(client.loop.base, client.resolver(), address, port) }
        guard let tls = client.tls, let bufferevent = tls.bufferevent(base: client.loop.base, host: address) else {
            return nil
        }
        guard
            let connection = evhttp_connection_base_bufferevent_new(
                client.loop.base, client.resolver(), bufferevent, address, port)
        else {
            bufferevent_free(bufferevent)
            return nil
        }
        return connection
    }

    private func request(on connection: OpaquePointer, host: String) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard
            let request = evhttp_request_new(
                { request, context in
                    Unmanaged<HTTPClientTask>.fromOpaque(context!).takeUnretainedValue().received(request)
                }, context)
        else {
            return finish(.failure(.cannotConnect))
        }
        evhttp_request_set_error_cb(request) { error, context in
            Unmanaged<HTTPClientTask>.fromOpaque(context!).takeUnretainedValue().lastError = error
        }
        let headers = evhttp_request_get_output_headers(request)
        let hostHeader = url.port.map { "\(host):\($0)" } ?? host
        evhttp_add_header(headers, "Host", hostHeader)
        evhttp_add_header(headers, "Accept", "*/*")
        evhttp_add_header(headers, "User-Agent", "LiveState")
        evhttp_add_header(headers, "Connection", "close")
        // NB: on failure libevent has freed the request already.
        if evhttp_make_request(connection, request, EVHTTP_REQ_GET, Self.target(of: url)) != 0 {
            finish(.failure(.cannotConnect))
        }
    }

    /// The request target: the encoded path (at least `/`) and query.
    private static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let path = components?.percentEncodedPath ?? ""
        let query = components?.percentEncodedQuery.map { "?\($0)" } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }

    /// The request's callback: a response, or nil / status 0 when the exchange failed.
    private func received(_ request: UnsafeMutablePointer<evhttp_request>?) {
        guard !finished else { return }
        guard let request, evhttp_request_get_response_code(request) != 0 else {
            return finish(.failure(failure()))
        }
        let status = Int(evhttp_request_get_response_code(request))
        let headers = Self.headers(of: request)
        let location = headers.first { $0.key.caseInsensitiveCompare("Location") == .orderedSame }?.value
        if [301, 302, 303, 307, 308].contains(status), let location {
            guard redirects < client.maxRedirects else { return finish(.failure(.tooManyRedirects)) }
            guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                return finish(.failure(.badResponse))
            }
            redirects += 1
            releaseConnection()
            return send(next)
        }
        let body = Self.body(of: request)
        let response = HTTPClient.Response(url: url, statusCode: status, headerFields: headers)
        finish(.success((data: body, response: response)))
    }

    /// Why the exchange failed: TLS's reason when the handshake or the certificate failed (the connection,
    /// still open until `releaseConnection`, keeps both), else what evhttp reported.
    private func failure() -> HTTPClient.Failure {
        if let tlsHost, let connection, let bufferevent = evhttp_connection_get_bufferevent(connection),
            let failure = TLSClientContext.failure(of: bufferevent, host: tlsHost)
        {
            return failure
        }
        guard let lastError else { return .cannotConnect }
        switch lastError.rawValue {
        case EVREQ_HTTP_TIMEOUT.rawValue: return .timedOut
        case EVREQ_HTTP_DATA_TOO_LONG.rawValue: return .tooLarge(limit: client.maxResponseSize)
        case EVREQ_HTTP_INVALID_HEADER.rawValue: return .badResponse
        case EVREQ_HTTP_EOF.rawValue, EVREQ_HTTP_BUFFER_ERROR.rawValue: return .connectionLost
        default: return .cannotConnect
        }
    }

    private static func headers(of request: UnsafeMutablePointer<evhttp_request>) -> [String: String] {
        var fields: [String: String] = [:]
        var entry = evhttp_request_get_input_headers(request)?.pointee.tqh_first
        while let header = entry {
            let key = String(cString: header.pointee.key)
            let value = String(cString: header.pointee.value)
            // NB: a repeated field joins with ", " (RFC 9110 §5.3).
            if let existing = fields.first(where: { $0.key.caseInsensitiveCompare(key) == .orderedSame }) {
                fields[existing.key] = existing.value + ", " + value
            } else {
                fields[key] = value
            }
            entry = header.pointee.next.tqe_next
        }
        return fields
    }

    private static func body(of request: UnsafeMutablePointer<evhttp_request>) -> Data {
        guard let buffer = evhttp_request_get_input_buffer(request) else { return Data() }
        let length = evbuffer_get_length(buffer)
        var data = Data(count: length)
        data.withUnsafeMutableBytes { bytes in
            _ = evbuffer_remove(buffer, bytes.baseAddress, length)
        }
        return data
    }

    /// Frees the current connection after libevent has unwound from its callback.
    private func releaseConnection() {
        guard let connection else { return }
        self.connection = nil
        // NB: freeing inside the connection's own callback would pull it from under libevent; the task
        // stays alive until then because libevent may still call back with it as context.
        client.loop.enqueue { [self] in
            evhttp_connection_free(connection)
            withExtendedLifetime(self) {}
        }
    }

    /// Ends the fetch once: stops the deadline, closes the connection, reports `result` (nil: cancelled).
    private func finish(_ result: Result<HTTPClient.Output, HTTPClient.Failure>?) {
        precondition(client.loop.inLoop, "an HTTP client task ends on its loop")
        guard !finished else { return }
        finished = true
        timer?.cancel()
        timer = nil
        releaseConnection()
        if let result, !cancelled.load(ordering: .acquiring) {
            completion(result)
        }
        retained?.release()
        retained = nil
    }
}
