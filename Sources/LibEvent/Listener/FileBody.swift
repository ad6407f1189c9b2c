import CEvent
import Glibc
import HTTP

/// A large body sent many times unchanged (a list snapshot's prepared answer), kept as a libevent file
/// segment over an anonymous memory file: every response hands the kernel the same pages with `sendfile`
/// instead of copying the bytes into the socket (one copy per response fewer; on loopback the receiver's
/// copy is then the only one).
///
/// Made once per body (`PreparedWire`) and freed with it; libevent counts the responses still
/// sending it and closes the file after the last one. Costs the body's size once more in memory (the
/// file's pages) for as long as the body is current.
final class FileBody: @unchecked Sendable {
    // NB: @unchecked because the segment is only read (added to buffers) after init; libevent locks its
    // reference count (threads are enabled before any loop starts).
    private let segment: OpaquePointer
    private let length: Int

    /// Bodies at least this large go out with `sendfile`. Below it the extra loop turn (libevent writes
    /// the head, then the file, in two writes) costs more than the copy it saves.
    static let minimumSize = 64 << 10

    private init(segment: OpaquePointer, length: Int) {
        self.segment = segment
        self.length = length
    }

    deinit {
        evbuffer_file_segment_free(segment)
    }

    /// `bytes` in a new file; nil when they are too small for it or no file could be made.
    static func make(_ bytes: [UInt8]) -> FileBody? {
        guard bytes.count >= minimumSize else { return nil }
        let descriptor = CEvent_memfd_create("livestate-body")
        guard descriptor >= 0 else { return nil }
        let written = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written,
            let segment = evbuffer_file_segment_new(
                descriptor, 0, Int64(bytes.count), UInt32(EVBUF_FS_CLOSE_ON_FREE | EVBUF_FS_DISABLE_MMAP))
        else {
            close(descriptor)
            return nil
        }
        return FileBody(segment: segment, length: bytes.count)
    }

    /// Adds the whole body to `buffer`, a request's output (evhttp moves it into the connection's, which
    /// drains to the socket); false if libevent refused (nothing was added).
    func append(to buffer: OpaquePointer?) -> Bool {
        // NB: libevent uses sendfile only for a buffer marked as draining to a descriptor (it otherwise maps
        // the file to memory); a request's output buffer only ever moves, whole, into the connection's.
        evbuffer_set_flags(buffer, UInt64(EVBUFFER_FLAG_DRAINS_TO_FD))
        return evbuffer_add_file_segment(buffer, segment, 0, Int64(length)) == 0
    }
}
