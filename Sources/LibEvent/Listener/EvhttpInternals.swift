import CEvent

/// Every place LiveState reaches into evhttp's own structures (`struct evhttp_request` from
/// `event2/http_struct.h`, which libevent marks as internal) or relies on how evhttp prints a field, in one
/// file, with the reason for each, and `checkVersion`, the check that the libevent in use is one whose layout and behaviour
/// the tests covered.
///
/// A libevent whose `struct evhttp_request` moved a field, or whose `evhttp_make_header_response` stopped
/// printing the reason phrase as it is, would not fail to link: it would frame `/events` chunks twice or send
/// broken heads. So the server refuses to start on any other version (`checkVersion`) until the tests have
/// run against it and its number is added to `testedVersions`.
package enum EvhttpInternals {
    /// `event_get_version_number()` of the libevent builds the tests ran against: 2.1.12-stable (Debian 12's
    /// `libevent-2.1-7`, the container's runtime library too).
    static let testedVersions: [UInt32] = [0x0201_0c00]

    /// Nil when the running libevent is one of `testedVersions`; otherwise the one line a refused start prints.
    static func versionProblem(_ number: UInt32 = event_get_version_number(), name: String = currentName)
        -> String?
    {
        guard !testedVersions.contains(number) else { return nil }
        return "libevent \(name) is not a version this build was tested with (2.1.12-stable); LiveState writes into "
            + "evhttp's request structure (LibEvent/Listener/EvhttpInternals.swift) and would frame responses "
            + "wrongly on an untested layout"
    }

    /// Throws the one line a start on an untested libevent prints (`versionProblem`); the server calls it first.
    package static func checkVersion() throws(LibEventError) {
        if let problem = versionProblem() { throw LibEventError(problem) }
    }

    /// The running library's version text (`2.1.12-stable`).
    private static var currentName: String { String(cString: event_get_version()) }

    // MARK: - The request's `chunked` flag

    /// Whether evhttp will frame this reply's chunks itself (`chunked`, set by `evhttp_send_reply_start` for
    /// an HTTP/1.1 client).
    static func isChunked(_ request: UnsafeMutablePointer<evhttp_request>) -> Bool {
        request.pointee.chunked != 0
    }

    /// Sets the `chunked` flag. NB: evhttp frames what `evhttp_send_reply_chunk` is given while the flag is set;
    /// cleared, it adds the bytes as they are, so an `/events` chunk can go straight to the socket framed by
    /// `DirectChunk` (one `sendmsg` of size line, shared frames and CRLF; no public call does that). The
    /// stream sets it back before `evhttp_send_reply_end`, so evhttp writes the last chunk and finishes the
    /// reply as usual.
    static func setChunked(_ request: UnsafeMutablePointer<evhttp_request>, _ chunked: Bool) {
        request.pointee.chunked = chunked ? 1 : 0
    }

    // MARK: - The parsed target (`uri_elems`)

    /// Frees the request's parsed target and clears the pointer. NB: a held `/events` connection would keep
    /// it for as long as it lasts, and the `Request` already holds a copy; it only serves
    /// `evhttp_request_get_evhttp_uri` and `evhttp_request_get_host`, which nothing calls for a stream, and
    /// `evhttp_request_free` frees it only when set, so the cleared pointer is not freed twice. There is no
    /// public call that releases it.
    static func releaseParsedTarget(_ request: UnsafeMutablePointer<evhttp_request>) {
        guard let uri = request.pointee.uri_elems else { return }
        evhttp_uri_free(uri)
        request.pointee.uri_elems = nil
    }

    // MARK: - Reads of the request's version

    /// Whether the request said HTTP/1.1 or later. NB: libevent has no public getter for the version it
    /// parsed; `major` and `minor` are read, never written.
    static func isHTTP11(_ request: UnsafeMutablePointer<evhttp_request>) -> Bool {
        request.pointee.major > 1 || request.pointee.major == 1 && request.pointee.minor >= 1
    }

    /// Whether the request said exactly HTTP/1.0 (which closes unless it asked to keep alive).
    static func isHTTP10(_ request: UnsafeMutablePointer<evhttp_request>) -> Bool {
        request.pointee.major == 1 && request.pointee.minor == 0
    }

    // MARK: - Prepared header lines in the reason phrase

    /// Sends the reply with `reason` as the status line's reason phrase. NB: a prepared answer's header lines
    /// (`PreparedWire`: `OK\r\nName: value…`) travel here, because evhttp copies the reason phrase and prints
    /// it as it is (`HTTP/1.1 200 %s\r\n`, http.c `evhttp_make_header_response`) before the fields it adds
    /// itself; that saves an `evhttp_add_header` and a `printf` per field per request. A libevent that checked
    /// or escaped the phrase would break those heads, one more reason for `checkVersion`.
    static func sendReply(_ request: UnsafeMutablePointer<evhttp_request>, status: Int, reason: UnsafePointer<CChar>?) {
        evhttp_send_reply(request, Int32(status), reason, nil)
    }
}
