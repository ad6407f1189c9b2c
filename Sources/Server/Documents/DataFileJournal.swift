import Foundation
import Storage
import Support

/// The journal a data file is served from, whichever engine holds it (`DataFileService` takes one): how the
/// service starts on it, what it keeps of the file, and how it stops. An SQLite journal sits beside one
/// server's file, which is the truth it is reconciled with; a PostgreSQL database is the truth several
/// servers share, filled once from the file (`DataFileJournal+SQLite.swift`, `DataFileJournal+Postgres.swift`).
protocol DataFileJournal: DocumentJournal, DocumentCheckpoints {
    /// Reads the file at `path` (or fills an empty database with it) and reconciles it with the journal: what
    /// the store starts from.
    func startServing(_ path: String, configuration: Configuration) throws -> DataFileStart

    /// Calls `committed` whenever other servers committed (none on SQLite: no one else commits).
    func follow(_ committed: @escaping @Sendable () -> Void)

    /// The entries after `seq`, oldest first, that the file may not show yet; none where the file is not
    /// written back.
    func unshown(after seq: Int64) -> [JournalEntry]

    /// Records that the file (whose bytes hash to `hash`) shows every entry up to `seq`.
    func markFile(seq: Int64, hash: String) throws(JournalError)

    /// Records, just before the rename that puts them in place, that the file's next bytes hash to `hash` and
    /// show every entry up to `seq`: a start after a crash between that rename and `markFile` knows the file
    /// as the server's own, not a person's edit.
    func markPendingFile(seq: Int64, hash: String) throws(JournalError)

    /// Stops: the journal is closed (nothing is kept but its entries, from which the next start makes the
    /// recent events again).
    func stopServing()
}

/// What a data file's start leads to: the resources the store starts with and what `DataFileService` keeps
/// about the start.
struct DataFileStart {
    /// The resources as the store starts with them (before `replay`).
    var resources: [DataFileContent.Resource]
    /// The journal id the store starts at.
    var seq: Int64
    /// The file's value resources and `$schema`.
    var values: DataFileValues
    /// Whether the file is written back and watched.
    var writesBack: Bool
    /// Where `path` led, when it was a symbolic link.
    var linkAtStart: String?
    /// The event ids.
    var ids: EventIDSource
    /// The entries `start(on:)` sends through the view models.
    var replay: [JournalEntry]
    /// The event id from which a `Last-Event-ID` resumes from the replayed events; nil: none is replayed.
    var resumeFloor: UInt64?
    /// The events the clean stop of an older LiveState saved (SQLite; served once after the upgrade).
    var savedEvents: [SQLiteDocumentJournal.SavedEvent]
    /// The file's and the journal's positions.
    var sync: DataFileService.Sync
    /// This server's file filled the database.
    var seededDatabase = false
    /// The file does not show the state: write it back once the service runs (when nothing is replayed).
    var writeBackNow = false
}

extension DataFileService {
    /// The journal `configuration.dataPath` names for the file at `path`: a PostgreSQL database, or an SQLite
    /// file (`:memory:` included). A file that cannot be served is refused before the journal is opened
    /// (mounted on its own), and a missing one is created with the example.
    static func journal(for path: String, configuration: Configuration) throws -> any DataFileJournal {
        let dataPath = configuration.dataPath
        if PostgresURI.matches(dataPath) {
            do {
                return try PostgresDocumentJournal(uri: dataPath, retention: configuration.journalRetention)
            } catch {
                throw DataFileError("cannot start the PostgreSQL connection: \(error)")
            }
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: Data(DataFileContent.example.utf8)) else {
                throw DataFileError("\(path) does not exist and cannot be created")
            }
            Log.info("\(path) did not exist: created it with an example (posts, comments, profile)")
        }
        if dataPath != ":memory:" { try DataFileMount.refuseSingleFile(path) }
        do {
            return try SQLiteDocumentJournal(path: dataPath, retention: configuration.journalRetention)
        } catch {
            throw DataFileError(error.description)
        }
    }
}
