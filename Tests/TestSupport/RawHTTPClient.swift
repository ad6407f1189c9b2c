import Foundation

/// A parsed HTTP response, as a client saw it on the wire.
package struct RawResponse {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    package var text: String { String(decoding: body, as: UTF8.self) }

    /// The contract's `error` code of an error body.
    package var errorCode: String? {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["error"] as? String
    }
}

/// A tiny blocking HTTP/1.1 client on raw sockets: paths go out exactly as written (no `..` clean-up).
package final class RawHTTPClient {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    package let fd: Int32

    /// Connects to `127.0.0.1:port`.
    // NB: `self.fd` is set only once connected. A class whose init throws after its properties are set still
    // runs `deinit`, so closing a failed socket here and again in `deinit` closed the descriptor twice — the
    // second time after another test's thread had been given that number (a child's stdout pipe: the child
    // then died of EPIPE on its `listening on` line).
    package init(port: Int, timeout: Double = 5) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "connect to port \(port) failed: \(reason)")
        }
        fd = descriptor
    }

    deinit { close(fd) }

    /// Sends raw bytes.
    package func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw Failure(description: "send failed") }
            offset += sent
        }
    }

    /// Sends a request; `Content-Length` is added for a body.
    package func sendRequest(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        close: Bool = false
    ) throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
            head += "Content-Length: \(body.count)\r\n"
        }
        if close { head += "Connection: close\r\n" }
        try send(Array((head + "\r\n").utf8) + body)
    }

    private var buffer: [UInt8] = []

    /// Reads more bytes; false at EOF or timeout.
    package func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    /// Reads one response (Content-Length, chunked, or until EOF). `head` skips the body (HEAD requests).
    package func readResponse(head: Bool = false) throws -> RawResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        var end: Int?
        while end == nil {
            end = buffer.firstRange(of: separator)?.lowerBound
            if end == nil, !fill() {
                throw Failure(description: "no complete response head: \(String(decoding: buffer, as: UTF8.self))")
            }
        }
        let headText = String(decoding: buffer[..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusParts = lines.removeFirst().split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line in \(headText)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if head || status == 204 || status == 304 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            while buffer.count < length { guard fill() else { throw Failure(description: "short body") } }
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                let size = try readChunkSize()
                if size == 0 { break }
                while buffer.count < size + 2 { guard fill() else { throw Failure(description: "short chunk") } }
                response.body += buffer[..<size]
                buffer.removeFirst(size + 2)
            }
        } else {
            while fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads the size line of the next chunk.
    package func readChunkSize() throws -> Int {
        while true {
            if let lineEnd = buffer.firstRange(of: [13, 10])?.lowerBound {
                let line = String(decoding: buffer[..<lineEnd], as: UTF8.self)
                buffer.removeFirst(lineEnd + 2)
                if line.isEmpty { continue }
                guard let size = Int(line, radix: 16) else { throw Failure(description: "bad chunk size \(line)") }
                return size
            }
            guard fill() else { throw Failure(description: "stream ended") }
        }
    }

    /// Reads the next chunk of a chunked body (nil when the stream ends).
    package func readChunk() throws -> [UInt8]? {
        let size = try readChunkSize()
        if size == 0 { return nil }
        while buffer.count < size + 2 { guard fill() else { throw Failure(description: "short chunk") } }
        let chunk = Array(buffer[..<size])
        buffer.removeFirst(size + 2)
        return chunk
    }

    /// Whether the server closed the connection (EOF) within the receive timeout.
    package func sawEOF() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    /// One request on a fresh connection.
    package static func request(
        port: Int, _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> RawResponse {
        let client = try RawHTTPClient(port: port)
        try client.sendRequest(method, target, headers: headers, body: body, close: true)
        return try client.readResponse(head: method == "HEAD")
    }
}
