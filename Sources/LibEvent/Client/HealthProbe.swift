import CEvent
import Foundation

/// A blocking `GET /healthz` for `livestate healthcheck` (a container's HEALTHCHECK): healthy only on a 200.
package enum HealthProbe {
    /// Asks `host:port` within `timeout` seconds; a wildcard listen address is probed on loopback.
    /// Nil when `/healthz` answered 200, else what went wrong, for a person
    /// ("nothing is listening on 127.0.0.1:1 (connection refused)").
    package static func problem(host: String, port: Int, timeout: Double = 2) -> String? {
        let target = host == "0.0.0.0" ? "127.0.0.1" : (host == "::" || host == "[::]") ? "::1" : host
        let address = target.contains(":") ? "[\(target)]:\(port)" : "\(target):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(target, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            return "cannot resolve \(target): \(String(cString: gai_strerror(resolved)))"
        }
        defer { freeaddrinfo(list) }
        var problem = "nothing is listening on \(address)"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                problem = "nothing is listening on \(address) (\(String(cString: strerror(errno))))"
                continue
            }
            let request = Array("GET /healthz HTTP/1.1\r\nHost: \(target)\r\nConnection: close\r\n\r\n".utf8)
            guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
            else {
                problem = "\(address) accepted the connection but not the request (\(String(cString: strerror(errno))))"
                continue
            }
            var response: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 512)
            while response.count < 64 {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                response += chunk[0..<count]
            }
            let statusLine = String(decoding: response, as: UTF8.self).prefix { $0 != "\r" }
            let parts = statusLine.split(separator: " ")
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else {
                return response.isEmpty
                    ? "\(address) sent no answer to GET /healthz within \(Self.seconds(timeout))"
                    : "\(address) does not speak HTTP (it answered '\(statusLine.prefix(40))')"
            }
            return parts[1] == "200" ? nil : "GET /healthz on \(address) answered \(statusLine.dropFirst(9))"
        }
        return problem
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
