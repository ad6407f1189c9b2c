import CEvent
import HTTP
import Support

/// Replaces the HTML error pages evhttp writes by itself (413 body too large, 400 malformed request,
/// 501 unknown method, 417 expectation) with the contract's JSON error body.
///
/// NB: libevent 2.1 has no hook for these (evhttp_set_errorcb came in 2.2): they never reach our
/// callback. So each connection's output buffer gets a callback that recognises a page just appended
/// (by its exact length, then its exact bytes) and swaps the whole response for our own.
enum ErrorPages {
    private struct Page {
        let html: [UInt8]
        let replacement: [UInt8]
    }

    /// evhttp's ERR_FORMAT with the reason phrases it uses, and our answers.
    private static let pages: [Int: [Page]] = {
        let errors: [(Int, String, HTTPError)] = [
            (413, "Request Entity Too Large", .payloadTooLarge),
            (400, "Bad Request", HTTPError(400, "bad_request", "the request is not valid HTTP")),
            (501, "Not Implemented", HTTPError(501, "not_implemented", "this method is not supported")),
            (417, "Expectation Failed", HTTPError(417, "expectation_failed", "only Expect: 100-continue is supported")),
        ]
        var table: [Int: [Page]] = [:]
        for (status, reason, error) in errors {
            let html = Array(
                "<HTML><HEAD>\n<TITLE>\(status) \(reason)</TITLE>\n</HEAD><BODY>\n<H1>\(reason)</H1>\n</BODY></HTML>\n"
                    .utf8)
            let body = JSONCoding.errorBody(error)
            let head =
                "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(Response.jsonContentType)\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            table[html.count, default: []].append(Page(html: html, replacement: Array(head.utf8) + body))
        }
        return table
    }()

    /// Watches `buffer` (a connection's output) for evhttp's error pages.
    static func install(on buffer: OpaquePointer?) {
        evbuffer_add_cb(buffer, callback, nil)
    }

    /// Stops watching `buffer`: a stream's connection, where evhttp writes no page (it reads no request
    /// while the stream lasts); `install` again if the connection outlives the stream.
    static func uninstall(from buffer: OpaquePointer?) {
        evbuffer_remove_cb(buffer, callback, nil)
    }

    private static let callback: evbuffer_cb_func = { buffer, info, _ in
        guard let buffer, let info, info.pointee.n_added > 0 else { return }
        ErrorPages.rewrite(buffer, added: info.pointee.n_added)
    }

    /// The shortest and longest page, to skip the table for every other write.
    private static let lengths: ClosedRange<Int> = (pages.keys.min() ?? 0)...(pages.keys.max() ?? 0)

    private static func rewrite(_ buffer: OpaquePointer, added: Int) {
        guard lengths.contains(added), let candidates = pages[added] else { return }
        let length = evbuffer_get_length(buffer)
        guard length >= added else { return }
        var tail = [UInt8](repeating: 0, count: added)
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(buffer, &position, length - added, EVBUFFER_PTR_SET) == 0,
            evbuffer_copyout_from(buffer, &position, &tail, added) == added,
            let page = candidates.first(where: { $0.html == tail })
        else { return }
        // The response starts at its status line; anything before it belongs to earlier responses.
        let statusLine = Array("HTTP/1.".utf8)
        var start = evbuffer_search(buffer, statusLine, statusLine.count, nil)
        var lastStart = -1
        while start.pos >= 0 {
            lastStart = start.pos
            guard evbuffer_ptr_set(buffer, &start, 1, EVBUFFER_PTR_ADD) == 0 else { break }
            start = evbuffer_search(buffer, statusLine, statusLine.count, &start)
        }
        guard lastStart >= 0 else { return }
        let earlier = evbuffer_new()
        defer { evbuffer_free(earlier) }
        evbuffer_remove_buffer(buffer, earlier, lastStart)
        evbuffer_drain(buffer, evbuffer_get_length(buffer))
        evbuffer_add_buffer(buffer, earlier)
        _ = page.replacement.withUnsafeBufferPointer { evbuffer_add(buffer, $0.baseAddress, $0.count) }
    }
}
