import CEvent
import Glibc

/// What the connection guard asks of a finished request and of a socket, answered from libevent's and
/// the kernel's state without changing either.
enum ConnectionFacts {
    /// Whether evhttp closes the connection after `request`'s response (http.c, `evhttp_send_done`).
    static func closes(_ request: UnsafeMutablePointer<evhttp_request>) -> Bool {
        func says(_ headers: UnsafeMutablePointer<evkeyvalq>?, _ value: String) -> Bool {
            evhttp_find_header(headers, "Connection").map { String(cString: $0).lowercased() == value } ?? false
        }
        let input = evhttp_request_get_input_headers(request)
        let output = evhttp_request_get_output_headers(request)
        let http10 = EvhttpInternals.isHTTP10(request)
        return says(input, "close") || says(output, "close") || http10 && !says(input, "keep-alive")
    }

    /// Whether the client sent bytes nobody read yet (peeked, so they stay in the socket).
    static func hasUnreadInput(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }
}
