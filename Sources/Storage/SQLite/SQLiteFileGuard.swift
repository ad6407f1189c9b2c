import Domain
import Glibc
import Support

/// Keeps an SQLite data file honest for the server that opened it: held exclusively (a second server on
/// the same file is refused), and watched (a file deleted or replaced under the running server is noticed
/// before a write is acknowledged, instead of committing into a file nobody will open again).
///
/// `:memory:` and `file:` URIs name no file to guard.
final class SQLiteFileGuard: Sendable {
    private let path: String
    /// An open descriptor of the file, holding the `flock`; nil when `path` names no file.
    private let descriptor: Int32?

    /// Opens (creating) `path` and takes an exclusive `flock` on it without waiting.
    ///
    /// NB: `flock`, not SQLite's own locks: SQLite's POSIX locks are per process and let a second process
    /// in between transactions, and `PRAGMA locking_mode=EXCLUSIVE` would make a second server wait on the
    /// busy timeout instead of saying at once who holds the file. The descriptor stays open as long as the
    /// store (closing any descriptor of a file drops the process's POSIX locks on it, SQLite's included).
    init(path: String) throws(JournalError) {
        self.path = path
        guard path != ":memory:", !path.hasPrefix("file:"), !path.isEmpty else {
            descriptor = nil
            return
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JournalError.failed("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(fd)
            throw JournalError.failed(
                busy
                    ? "\(path) is in use by another livestate server (one server per SQLite file)"
                    : "cannot lock \(path): \(reason)")
        }
        descriptor = fd
    }

    deinit {
        if let descriptor { close(descriptor) }
    }

    /// Throws when the path no longer names the file this server opened (deleted, or another file moved
    /// into its place), and logs it once per call: a write now would be lost at the next start.
    func check() throws(JournalError) {
        guard let descriptor else { return }
        var opened = stat()
        var named = stat()
        let openedOK = fstat(descriptor, &opened) == 0
        let namedOK = stat(path, &named) == 0
        let what: String
        if namedOK, openedOK, opened.st_dev != named.st_dev || opened.st_ino != named.st_ino {
            // A rename over the path also drops the old file's last link: "replaced" is the truer word.
            what = "was replaced by another file"
        } else if !namedOK || !openedOK || opened.st_nlink == 0 {
            what = "was deleted"
        } else {
            return
        }
        Log.error("storage: the data file \(path) \(what) while the server runs; writes are refused")
        throw JournalError.failed("the data file \(path) \(what) while the server runs; restart the server")
    }
}
