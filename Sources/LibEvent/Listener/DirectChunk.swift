import CEvent
import Glibc
import HTTP

/// A stream's chunk written straight to its socket when nothing waits in the connection's output: one
/// `sendmsg` of the chunk's size line, the shared frames (no copy) and the closing CRLF. Queued in
/// libevent instead, every chunk would cost a write event armed and disarmed (two `epoll_ctl`) and a
/// turn of the loop per client per event on top of the write itself.
///
/// The stream frames its chunks itself (`LibEventStream` clears evhttp's `chunked` flag once the head is
/// out): what the kernel does not take goes to libevent as plain bytes, already framed.
///
/// NB: for the listener's plain socket bufferevents only; a TLS bufferevent must never be written past.
enum DirectChunk {
    /// The most frames sent in one call (`IOV_MAX` is 1024); a longer batch goes through libevent.
    static let maxFrames = 64

    /// The length of `size` bytes framed as one chunk (`chunked`) or sent as they are.
    static func framedLength(_ size: Int, chunked: Bool) -> Int {
        chunked ? sizeLineLength(size) + size + 2 : size
    }

    /// Sends `frames` (`size` bytes together) on `descriptor` without blocking; returns how many bytes of
    /// the framed chunk the kernel took: 0 when it took none or the socket failed (libevent then writes
    /// the rest and meets the error itself).
    static func send(_ frames: [SharedBytes], size: Int, chunked: Bool, on descriptor: Int32) -> Int {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { line in
            let lineLength = chunked ? writeSizeLine(size, into: line) : 0
            return withUnsafeTemporaryAllocation(of: iovec.self, capacity: frames.count + 2) { vectors in
                var count = 0
                if lineLength > 0 {
                    vectors[count] = iovec(iov_base: UnsafeMutableRawPointer(line.baseAddress), iov_len: lineLength)
                    count += 1
                }
                for frame in frames {
                    // NB: the storage of a `SharedBytes` never moves or changes, and `frames` keeps it alive.
                    vectors[count] = frame.bytes.withUnsafeBufferPointer {
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
                    }
                    count += 1
                }
                if chunked {
                    vectors[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: crlf.utf8Start), iov_len: 2)
                    count += 1
                }
                var message = msghdr()
                message.msg_iov = vectors.baseAddress
                message.msg_iovlen = count
                return max(0, sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)))
            }
        }
    }

    /// Adds the framed chunk of `frames`, past its first `skip` bytes (those the kernel took), to `buffer`:
    /// whole frames by reference, the rest copied.
    static func appendRest(
        _ frames: [SharedBytes], size: Int, chunked: Bool, skipping skip: Int, to buffer: OpaquePointer?
    ) {
        var skip = skip
        // Adds `piece` unless it was sent; true when it was added whole.
        func add(_ piece: UnsafeBufferPointer<UInt8>) -> Bool {
            guard skip < piece.count else {
                skip -= piece.count
                return false
            }
            let whole = skip == 0
            if !whole { _ = evbuffer_add(buffer, piece.baseAddress! + skip, piece.count - skip) }
            skip = 0
            return whole
        }
        if chunked {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { line in
                let length = writeSizeLine(size, into: line)
                let piece = UnsafeBufferPointer(rebasing: line[..<length])
                if add(piece) { evbuffer_add(buffer, piece.baseAddress, piece.count) }
            }
        }
        for frame in frames {
            if frame.bytes.withUnsafeBufferPointer(add) { ByteBox.append(shared: frame, to: buffer) }
        }
        if chunked {
            let piece = UnsafeBufferPointer(start: crlf.utf8Start, count: 2)
            if add(piece) { evbuffer_add(buffer, piece.baseAddress, 2) }
        }
    }

    private static let crlf: StaticString = "\r\n"

    private static func sizeLineLength(_ size: Int) -> Int {
        var digits = 1
        var rest = size >> 4
        while rest > 0 {
            digits += 1
            rest >>= 4
        }
        return digits + 2
    }

    /// `size` in lowercase hex and CRLF (what evhttp writes before a chunk); returns its length.
    private static func writeSizeLine(_ size: Int, into line: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let length = sizeLineLength(size)
        var rest = size
        for index in stride(from: length - 3, through: 0, by: -1) {
            let digit = UInt8(rest & 0xF)
            line[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            rest >>= 4
        }
        line[length - 2] = UInt8(ascii: "\r")
        line[length - 1] = UInt8(ascii: "\n")
        return length
    }
}
