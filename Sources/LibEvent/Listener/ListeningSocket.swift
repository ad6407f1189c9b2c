import CEvent
import Foundation

/// A bound, listening TCP socket shared by every loop's `HTTPListener` (each accepts on its own `dup`).
package final class ListeningSocket: @unchecked Sendable {
    // NB: @unchecked because the descriptor is immutable after init and only closed in deinit.

    /// The descriptor (non-blocking, TCP_NODELAY so accepted sockets inherit it).
    let descriptor: Int32
    /// The address as given (`127.0.0.1`, `::1`, `0.0.0.0`).
    package let host: String
    /// The bound port (the real one when 0 was asked for).
    package let port: Int

    /// Binds `host:port` (a numeric address or a name such as `localhost`) and listens.
    package init(host: String, port: Int, backlog: Int32 = 1024) throws(LibEventError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw LibEventError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            // NB: Linux copies TCP_NODELAY to accepted sockets; without it a 23 KB reply stalls ~40 ms on
            // the client's delayed ACK (Nagle holds the last partial segment).
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(fd, backlog) == 0,
                evutil_make_socket_nonblocking(fd) == 0, evutil_make_socket_closeonexec(fd) == 0
            {
                descriptor = fd
                self.host = host
                self.port = Self.boundPort(fd)
                return
            }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw LibEventError("cannot listen on \(host):\(port): \(lastError)")
    }

    deinit {
        close(descriptor)
    }

    /// A new descriptor for the same socket, for one more loop to accept on.
    func duplicate() throws(LibEventError) -> Int32 {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw LibEventError("dup of the listening socket failed") }
        return copy
    }

    private static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return 0 }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return 0
        }
    }
}
