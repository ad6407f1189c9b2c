import Glibc

/// What an SQLite file in WAL mode and its `-wal` look like from outside (identity, size, time of the last
/// change, whether each starts with SQLite's header): enough to tell a change the server made from one
/// another program made.
///
/// A commit only appends to the WAL or writes it again from its start after a checkpoint, and a checkpoint
/// only writes pages into the file: neither ever makes a file smaller or gives it a new inode. So between
/// two of the server's own writes nothing may change at all (`change(since:)`), and across one of them
/// nothing may shrink or be replaced (`damage(since:)`).
///
/// ```swift
/// let seen = SQLiteFileState(descriptor: fd, path: "db.json.livestate")
/// // … a commit …
/// if let what = SQLiteFileState(descriptor: fd, path: "db.json.livestate").damage(since: seen) { … }
/// ```
struct SQLiteFileState: Equatable {
    /// One file's identity, size and status change time.
    struct Part: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var changedSeconds: Int
        var changedNanoseconds: Int

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            changedSeconds = Int(status.st_ctim.tv_sec)
            changedNanoseconds = Int(status.st_ctim.tv_nsec)
        }
    }

    /// The database file (read through the server's own descriptor).
    var file: Part?
    /// The `-wal` beside it; nil when there is none.
    var wal: Part?
    /// Whether the file starts with `SQLite format 3` and the WAL (when not empty) with a WAL magic number:
    /// a truncation followed by a write at the old offset leaves zeros there and keeps the size.
    var headersIntact: Bool

    /// The file open as `descriptor` and the `-wal` beside `path`, now.
    init(descriptor: Int32, path: String) {
        var status = stat()
        file = fstat(descriptor, &status) == 0 ? Part(status) : nil
        wal = stat(path + "-wal", &status) == 0 ? Part(status) : nil
        var intact = Self.startsWith(descriptor, Array("SQLite format 3\0".utf8), size: file?.size ?? 0)
        if intact, let wal, wal.size > 0 {
            let fd = open(path + "-wal", O_RDONLY | O_CLOEXEC)
            // NB: closing it drops no lock: SQLite locks the database file (and -shm), never the WAL.
            intact = fd >= 0 && Self.startsWithWALMagic(fd)
            if fd >= 0 { close(fd) }
        }
        headersIntact = intact
    }

    /// What changed since `seen` (nothing may, between two of the server's writes), in words; nil if nothing.
    func change(since seen: SQLiteFileState) -> String? {
        guard self != seen else { return nil }
        return damage(since: seen) ?? "was written by another program"
    }

    /// What changed since `seen` that none of the server's own writes does (a file shrank, was replaced or
    /// deleted, or lost its header), in words; nil if nothing.
    func damage(since seen: SQLiteFileState) -> String? {
        guard let file else { return "cannot be read" }
        if let before = seen.file, file.size < before.size { return "was truncated" }
        if let before = seen.wal {
            guard let wal else { return "had its -wal deleted" }
            if wal.device != before.device || wal.inode != before.inode { return "had its -wal replaced" }
            if wal.size < before.size { return "had its -wal truncated" }
        }
        return headersIntact ? nil : "was overwritten (its header is not SQLite's)"
    }

    private static func startsWith(_ fd: Int32, _ bytes: [UInt8], size: Int64) -> Bool {
        guard size > 0 else { return true }
        var head = [UInt8](repeating: 0, count: bytes.count)
        let read = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return read == bytes.count && head == bytes
    }

    /// The WAL header's first four bytes: 0x377f0682 or 0x377f0683 (big-endian), sqlite.org/fileformat.html.
    private static func startsWithWALMagic(_ fd: Int32) -> Bool {
        var head = [UInt8](repeating: 0, count: 4)
        let read = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return read == 4 && head[0] == 0x37 && head[1] == 0x7f && head[2] == 0x06 && (head[3] & 0xfe) == 0x82
    }
}
