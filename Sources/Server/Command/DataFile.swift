import Foundation
import Storage

/// The SQLite file of `--data` as it was before the server opened it, so that a start that fails after
/// creating it can take it back: a failed start leaves no empty database behind.
///
/// ```swift
/// let file = DataFile(path: "./livestate.sqlite")   // not there yet
/// // … opening the store creates it, then a later step fails …
/// file.removeIfCreated()                              // gone again, with -wal, -shm, -journal
/// ```
struct DataFile {
    /// The path given; `:memory:` and connection URIs name no file.
    let path: String
    /// Whether a file was at `path` before the server started (or `path` names no file).
    let existed: Bool

    /// Notes whether `path` names an existing file now.
    init(path: String) {
        self.path = path
        existed = !Self.namesAFile(path) || FileManager.default.fileExists(atPath: path)
    }

    /// Removes the file and SQLite's companions if they were not there before; a file that was there is
    /// never touched (it holds someone's todos), nor one another server holds (it started on the file this
    /// one created, and won the lock).
    func removeIfCreated() {
        guard !existed else { return }
        SQLiteFileGuard.removeUnlessHeld(path)
    }

    private static func namesAFile(_ path: String) -> Bool {
        path != ":memory:" && !path.contains("://") && !path.hasPrefix("file:")
    }
}
