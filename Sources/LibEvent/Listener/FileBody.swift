import CEvent
import Glibc

/// A large body sent many times unchanged (a prepared answer's, such as the 724 KB album list), kept as a
/// libevent file segment over an unlinked file in a folder on disk: every response hands the kernel the
/// file's cached pages with `sendfile` instead of copying the bytes into the socket.
///
/// Measured on this project's machine (docs/benchmarks.md, "What we learned"): the kernel CPU per
/// `GET /albums` fell from 140–190 µs (one `writev` copy) to 90–110 µs from a file on ext4; an anonymous
/// memory file (`memfd`) saved less and on a Linux 6.18 machine cost twice the copy, so the file lives in a
/// folder on a disk's filesystem (`--body-files`, default `/var/tmp`), which an operator can also turn off.
///
/// Made once per body (`PreparedWire`) and freed with it; libevent counts the responses still sending it
/// and closes the file after the last one. The file is unlinked as soon as it is made, before a byte is
/// written: nothing is left behind in the folder, even after a crash.
final class FileBody: @unchecked Sendable {
    // NB: @unchecked because the segment is only read (added to buffers) after init; libevent locks its
    // reference count (threads are enabled before any loop starts).
    private let segment: OpaquePointer
    private let length: Int

    /// Bodies at least this large go out with `sendfile`. Below it the extra write (libevent writes the
    /// head, then the file) costs more than the copy it saves.
    static let minimumSize = 64 << 10

    private init(segment: OpaquePointer, length: Int) {
        self.segment = segment
        self.length = length
    }

    deinit {
        evbuffer_file_segment_free(segment)
    }

    /// `bytes` in a new file in `folder`; nil when they are too small for one or the file could not be made
    /// or written whole (a full disk, a missing folder): the body then goes by reference, as smaller ones do.
    static func make(_ bytes: [UInt8], in folder: String) -> FileBody? {
        guard bytes.count >= minimumSize else { return nil }
        var template = Array((folder.hasSuffix("/") ? folder : folder + "/").utf8CString.dropLast())
        template += Array("livestate-body-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { name -> Int32 in
            let descriptor = mkstemp(name.baseAddress!)
            guard descriptor >= 0 else { return descriptor }
            unlink(name.baseAddress!)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            return descriptor
        }
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
        // or reads the file into memory); a request's output buffer only ever moves, whole, into the
        // connection's.
        evbuffer_set_flags(buffer, UInt64(EVBUFFER_FLAG_DRAINS_TO_FD))
        return evbuffer_add_file_segment(buffer, segment, 0, Int64(length)) == 0
    }
}
