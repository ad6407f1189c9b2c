import CEvent
import Foundation

/// A blocking `GET /healthz` for `livestate healthcheck` (a container's HEALTHCHECK): true only on a 200.
package enum HealthProbe {
    /// Asks `host:port` within `timeout` seconds; a wildcard listen address is probed on loopback.
    package static func check(host: String, port: Int, timeout: Double = 2) -> Bool {
        let target = host == "0.0.0.0" ? "127.0.0.1" : (host == "::" || host == "[::]") ? "::1" : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(target, String(port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else { continue }
            let request = Array("GET /healthz HTTP/1.1\r\nHost: \(target)\r\nConnection: close\r\n\r\n".utf8)
            guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
            else { continue }
            var response: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 512)
            while response.count < 64 {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                response += chunk[0..<count]
            }
            let statusLine = String(decoding: response, as: UTF8.self).prefix { $0 != "\r" }
            let parts = statusLine.split(separator: " ")
            return parts.count >= 2 && parts[0].hasPrefix("HTTP/1.") && parts[1] == "200"
        }
        return false
    }
}
