import Domain
import Glibc
import Support
import Synchronization

/// Keeps an SQLite file honest for the server that opened it: held exclusively (a second server on the
/// same file is refused), and watched (a file deleted, replaced, truncated or written by another program
/// under the running server is noticed before a write is acknowledged, instead of committing into a file
/// nobody will open again or that a restart reads as damaged).
///
/// `:memory:` and `file:` URIs name no file to guard.
package final class SQLiteFileGuard: Sendable {
    private let path: String
    /// An open descriptor of the file, holding the `flock`; nil when `path` names no file.
    private let descriptor: Int32?
    /// Whether the file's content is watched too (`watchesContent`), and what was seen after this server's
    /// last write; the reason once something else changed it (from then on every check throws).
    private let watched: Mutex<(seen: SQLiteFileState?, failure: String?)>
    private let watchesContent: Bool

    /// Opens (creating) `path` and takes an exclusive `flock` on it without waiting; with `watchesContent`,
    /// `check` also notices a change of the file's or its WAL's bytes that this server did not make
    /// (`record` after each of its own writes).
    ///
    /// NB: `flock`, not SQLite's own locks: SQLite's POSIX locks are per process and let a second process
    /// in between transactions, and `PRAGMA locking_mode=EXCLUSIVE` alone would make a second server wait on
    /// the busy timeout instead of saying at once who holds the file. The descriptor stays open as long as
    /// the store (closing any descriptor of a file drops the process's POSIX locks on it, SQLite's included).
    init(path: String, watchesContent: Bool = false) throws(JournalError) {
        self.path = path
        self.watchesContent = watchesContent
        watched = Mutex((nil, nil))
        guard Self.namesAFile(path) else {
            descriptor = nil
            return
        }
        descriptor = try Self.lock(path)
    }

    deinit {
        if let descriptor { close(descriptor) }
    }

    /// Removes the file at `path` and SQLite's companions (`-wal`, `-shm`, `-journal`) unless a server holds
    /// it: a start that failed takes back a file it created, never one another server started on meanwhile.
    package static func removeUnlessHeld(_ path: String) {
        guard namesAFile(path) else { return }
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // NB: removed while locked, so a server that opened the file meanwhile finds, once it has the lock,
        // that the path no longer names its file, and starts again on a new one (`lock`).
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, sameFile(fd, path) else { return }
        for suffix in ["-wal", "-shm", "-journal", ""] { unlink(path + suffix) }
    }

    /// Throws when the path no longer names the file this server opened (deleted, or another file moved into
    /// its place) or, when watched, its bytes or its WAL's changed since this server's last write (truncated,
    /// overwritten), and logs it the first time: a write now would be lost, or read back as damaged, at the
    /// next start. Once it threw it always throws: writes stay refused until a restart.
    func check() throws(JournalError) {
        try verify { now, seen in now.change(since: seen) }
    }

    /// After a write of this server: throws as `check` does when the write found the file changed under it
    /// (replaced, or shrunk, which no write of this server does), and notes how the file looks now, for the
    /// next `check`.
    func record() throws(JournalError) {
        try verify { now, seen in now.damage(since: seen) }
    }

    /// Notes how the file looks after this server emptied its WAL itself (`wal_checkpoint(TRUNCATE)`), which
    /// `record` would take for another program's truncation.
    func recordOwnTruncation() {
        guard let descriptor, watchesContent else { return }
        watched.withLock { $0.seen = SQLiteFileState(descriptor: descriptor, path: path) }
    }

    /// Throws (and logs, the first time) when the path names another file, when a check failed before, or
    /// when `compare` finds a change between the file now and as last recorded; records the file as it is.
    private func verify(_ compare: (SQLiteFileState, SQLiteFileState) -> String?) throws(JournalError) {
        guard let descriptor else { return }
        try watched.withLock { watched throws(JournalError) in
            if let failure = watched.failure { throw JournalError.failed(failure) }
            var what = identityProblem(descriptor)
            if what == nil, watchesContent {
                let now = SQLiteFileState(descriptor: descriptor, path: path)
                if let seen = watched.seen { what = compare(now, seen) }
                watched.seen = now
            }
            guard let what else { return }
            let failure = "\(path) \(what) while the server runs; writes are refused: restart the server"
            Log.error("storage: \(failure)")
            watched.failure = failure
            throw JournalError.failed(failure)
        }
    }

    /// "was replaced …" or "was deleted" when `path` no longer names the file open as `descriptor`.
    private func identityProblem(_ descriptor: Int32) -> String? {
        var opened = stat()
        var named = stat()
        let openedOK = fstat(descriptor, &opened) == 0
        let namedOK = stat(path, &named) == 0
        if namedOK, openedOK, opened.st_dev != named.st_dev || opened.st_ino != named.st_ino {
            // A rename over the path also drops the old file's last link: "replaced" is the truer word.
            return "was replaced by another file"
        } else if !namedOK || !openedOK || opened.st_nlink == 0 {
            return "was deleted"
        }
        return nil
    }

    /// Opens `path` (creating it) and locks it, again when the path stopped naming the file between the
    /// open and the lock (a failed start removed it: `removeUnlessHeld`).
    private static func lock(_ path: String) throws(JournalError) -> Int32 {
        for _ in 0..<8 {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw JournalError.failed("cannot open \(path): \(String(cString: strerror(errno)))")
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let busy = errno == EWOULDBLOCK
                let reason = String(cString: strerror(errno))
                close(fd)
                throw JournalError.failed(
                    busy
                        ? "\(path) is in use by another livestate server (one server per SQLite file)"
                        : "cannot lock \(path): \(reason)")
            }
            if sameFile(fd, path) { return fd }
            close(fd)
        }
        throw JournalError.failed("cannot lock \(path): it is removed and created again by another program")
    }

    /// Whether `path` names the file open as `fd`.
    private static func sameFile(_ fd: Int32, _ path: String) -> Bool {
        var opened = stat()
        var named = stat()
        return fstat(fd, &opened) == 0 && stat(path, &named) == 0 && opened.st_dev == named.st_dev
            && opened.st_ino == named.st_ino
    }

    private static func namesAFile(_ path: String) -> Bool {
        path != ":memory:" && !path.hasPrefix("file:") && !path.isEmpty && !path.contains("://")
    }
}
