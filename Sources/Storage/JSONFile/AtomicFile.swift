import Glibc

/// A user's file read whole and replaced whole: a reader, a `kill -9` or a full disk sees the old content
/// or the new, never a part of either, and never an empty file.
///
/// `replace` writes a hidden temporary file in the same folder (a rename is atomic only within one
/// filesystem), makes it durable, gives it the original's permission bits and owner, renames it over the
/// file and makes the rename durable by syncing the folder. Any failure before the rename removes the
/// temporary file and leaves the original as it was.
///
/// ```swift
/// try AtomicFile.replace("/srv/db.json", with: Array(json.utf8))
/// let bytes = try AtomicFile.read("/srv/db.json", maxBytes: 256 << 20)
/// ```
package enum AtomicFile {
    /// The prefix and suffix of the temporary file beside `name`: `.db.json.livestate-XXXXXX`, hidden, and
    /// named after the file so that a person who finds one left by a crash knows where it comes from.
    package static func temporaryName(for name: String) -> String {
        ".\(name).livestate-XXXXXX"
    }

    /// Replaces the content of the file at `path` with `bytes` atomically and durably (see the type).
    ///
    /// A symbolic link is followed: its target is replaced and the link stays. A file that does not exist
    /// is created with the permissions a new file gets (0666 less the umask).
    ///
    /// NB: a failure to sync the folder after the rename is thrown although the file already holds the new
    /// bytes: the rename may not survive a power loss, and the caller's next write will try again.
    ///
    /// `stillWanted` runs once the new content is durable in the temporary file, just before the rename: when
    /// it answers false (the file changed meanwhile and must be read first), nothing is replaced and `replace`
    /// answers nil. The check and the rename are microseconds apart, not the whole write.
    ///
    /// Answers the identity of the file written, as `identity` would give it at `path` while nothing else
    /// replaced it: taken from the written file itself after the rename, not from the path, so a file deleted or
    /// replaced right after the rename is never taken for the one written.
    @discardableResult
    package static func replace(
        _ path: String, with bytes: [UInt8], stillWanted: () -> Bool = { true }
    ) throws(AtomicFileError) -> FileIdentity? {
        let target = resolvingLink(path)
        let (folder, name) = split(target)
        var existing = stat()
        let exists = stat(target, &existing) == 0
        let mode = exists ? existing.st_mode & 0o7777 : 0o666 & ~currentUmask()

        var template = Array("\(folder)/\(temporaryName(for: name))".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw AtomicFileError("mkstemp", folder, code: errno) }
        // NB: `mkostemp` (which sets it at once) needs _GNU_SOURCE, which Swift's Glibc module does not define.
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }

        do throws(AtomicFileError) {
            try writeAll(descriptor, bytes, temporary)
            guard fchmod(descriptor, mode) == 0 else { throw AtomicFileError("fchmod", temporary, code: errno) }
            // Best effort: only root may give the file away, and keeping the owner matters only then.
            if exists && (existing.st_uid != geteuid() || existing.st_gid != getegid()) {
                _ = fchown(descriptor, existing.st_uid, existing.st_gid)
            }
            guard fsync(descriptor) == 0 else { throw AtomicFileError("fsync", temporary, code: errno) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        // NB: a second descriptor outlives the checked close below, so the written file's identity is read after
        // the rename (which changes its `st_ctim`) from the file itself, whatever is at the path by then.
        let written = dup(descriptor)
        // Some filesystems (NFS) report a failed write only at close.
        guard written >= 0, close(descriptor) == 0 else {
            let code = errno
            if written >= 0 { close(written) } else { close(descriptor) }
            unlink(temporary)
            throw AtomicFileError(written >= 0 ? "close" : "dup", temporary, code: code)
        }
        defer { close(written) }
        guard stillWanted() else {
            unlink(temporary)
            return nil
        }
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw AtomicFileError("rename", target, code: code)
        }
        var status = stat()
        guard fstat(written, &status) == 0 else { throw AtomicFileError("fstat", target, code: errno) }
        try syncFolder(folder)
        return identity(of: status)
    }

    /// The whole content of the regular file at `path`; throws `EFBIG` when it holds more than `maxBytes`,
    /// `EISDIR` for a folder and `EINVAL` for anything else that is not a regular file (a FIFO is not
    /// waited on).
    package static func read(_ path: String, maxBytes: Int) throws(AtomicFileError) -> [UInt8] {
        let (descriptor, status) = try openRegular(path, maxBytes: maxBytes)
        defer { close(descriptor) }
        // One byte more than allowed is asked for, so a file that grew since `fstat` is caught.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count <= maxBytes else { throw AtomicFileError("read", path, code: EFBIG) }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, maxBytes + 1 - bytes.count)))
            }
            let count = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw AtomicFileError("read", path, code: errno) }
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// The regular file at `path` opened for reading, with its `fstat`, refused as `read` refuses it.
    private static func openRegular(_ path: String, maxBytes: Int) throws(AtomicFileError) -> (Int32, stat) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw AtomicFileError("open", path, code: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw AtomicFileError("fstat", path, code: code)
        }
        guard isRegular(status), status.st_size <= maxBytes else {
            close(descriptor)
            let code = !isRegular(status) ? (status.st_mode & S_IFMT == S_IFDIR ? EISDIR : EINVAL) : EFBIG
            throw AtomicFileError("read", path, code: code)
        }
        return (descriptor, status)
    }

    /// The regular file at `path` to be read a part at a time (refused as `read` refuses it), so that a
    /// large file need not be held whole while it is read.
    package static func parts(_ path: String, maxBytes: Int) throws(AtomicFileError) -> Parts {
        Parts(path: path, descriptor: try openRegular(path, maxBytes: maxBytes).0, maxBytes: maxBytes)
    }

    /// An open file read in parts, in order; closed when the reader goes.
    package final class Parts {
        /// The file's path, for errors.
        package let path: String
        private let descriptor: Int32
        private let maxBytes: Int
        private var total = 0

        fileprivate init(path: String, descriptor: Int32, maxBytes: Int) {
            self.path = path
            self.descriptor = descriptor
            self.maxBytes = maxBytes
        }

        deinit { close(descriptor) }

        /// The next bytes of the file, at most `count` (and more than none unless the file has ended);
        /// throws `EFBIG` once the file has given more than `maxBytes` (it grew since it was opened).
        package func next(upTo count: Int) throws(AtomicFileError) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            while true {
                let read = bytes.withUnsafeMutableBytes { buffer in
                    Glibc.read(descriptor, buffer.baseAddress!, buffer.count)
                }
                if read < 0 && errno == EINTR { continue }
                guard read >= 0 else { throw AtomicFileError("read", path, code: errno) }
                total += read
                guard total <= maxBytes else { throw AtomicFileError("read", path, code: EFBIG) }
                bytes.removeSubrange(read...)
                return bytes
            }
        }
    }

    /// What `stat` says of `path` (following a symbolic link), or nil when nothing is there.
    package static func identity(_ path: String) -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return identity(of: status)
    }

    private static func identity(of status: stat) -> FileIdentity {
        FileIdentity(
            device: UInt64(status.st_dev),
            inode: UInt64(status.st_ino),
            size: Int64(status.st_size),
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            changed: Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec),
            isRegularFile: isRegular(status))
    }

    private static func isRegular(_ status: stat) -> Bool {
        status.st_mode & S_IFMT == S_IFREG
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], _ path: String) throws(AtomicFileError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw AtomicFileError("write", path, code: count < 0 ? errno : EIO) }
            written += count
        }
    }

    private static func syncFolder(_ folder: String) throws(AtomicFileError) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AtomicFileError("open", folder, code: errno) }
        defer { close(descriptor) }
        // Some filesystems cannot sync a folder and say so; nothing more can be done there.
        guard fsync(descriptor) == 0 || errno == EINVAL else { throw AtomicFileError("fsync", folder, code: errno) }
    }

    /// The file the symbolic link at `path` ends at (the file `replace` writes), or nil when `path` is no link.
    package static func linkTarget(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
        return resolvingLink(path)
    }

    /// The file a symbolic link at `path` ends at, or `path` itself (a missing target is created).
    private static func resolvingLink(_ path: String) -> String {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return path }
        guard let resolved = realpath(path, nil) else {
            // A dangling link: its target is where the file goes.
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(path, &target, Int(PATH_MAX))
            guard length > 0 else { return path }
            let destination = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return destination.hasPrefix("/") ? destination : split(path).folder + "/" + destination
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The folder (`.` for a bare name) and the last component of `path`.
    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// The process's umask, read without changing it (`umask(2)` can only set it, and the process is
    /// threaded); 022 when `/proc` does not say.
    private static func currentUmask() -> mode_t {
        guard let bytes = try? read("/proc/self/status", maxBytes: 64 * 1024) else { return 0o022 }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let value = mode_t(
                line.dropFirst("Umask:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 8)
        else { return 0o022 }
        return value
    }
}
