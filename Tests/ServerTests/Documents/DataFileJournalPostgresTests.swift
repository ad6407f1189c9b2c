import Domain
import Foundation
import Storage
import TestSupport
import Testing

@testable import Server

/// A data file's start on a real PostgreSQL (`DataFileJournal+Postgres`): the file fills an empty database
/// once, and from then on the database is the truth; a restart sends its newest entries through the view models
/// again, so their events keep their ids.
@Suite(.serialized, .enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct DataFileJournalPostgresTests {
    /// A new folder with the file `db.json` holding `json` (nil: no file), and the configuration serving it
    /// from a new database.
    private static func setUp(_ json: String?) throws -> (folder: URL, path: String, Configuration) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-pg-start-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("db.json").path
        if let json { try Data(json.utf8).write(to: URL(fileURLWithPath: path)) }
        var configuration = Configuration()
        configuration.dataFile = path
        configuration.dataPath = try PostgresTestDatabase.fresh("file_start")
        return (folder, path, configuration)
    }

    /// The journal `DataFileService` opens for `configuration`, which must be PostgreSQL's.
    private static func journal(_ path: String, _ configuration: Configuration) throws -> PostgresDocumentJournal {
        try #require(try DataFileService.journal(for: path, configuration: configuration) as? PostgresDocumentJournal)
    }

    /// The ids of `resource`'s items in `resources`.
    private static func ids(_ resources: [DataFileContent.Resource], _ resource: String) -> [String] {
        resources.first { $0.name == resource }?.documents.compactMap { $0.id?.key } ?? []
    }

    @Test func aMissingFileFillsAnEmptyDatabaseWithTheExampleAndIsNeitherCreatedNorWrittenBack() throws {
        let (folder, path, configuration) = try Self.setUp(nil)
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = try Self.journal(path, configuration)
        let service = try DataFileService(path: path, journal: journal, configuration: configuration)
        defer { service.stop() }
        #expect(Set(service.store.byName.keys) == ["posts", "comments", "profile"])
        #expect(service.store.isShared && !service.writesBack)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aSecondServerServesTheDatabaseAndDoesNotReadItsOwnFile() throws {
        let (folder, path, configuration) = try Self.setUp(#"{"posts": [{"id": 1, "title": "first"}]}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try Self.journal(path, configuration)
        defer { first.stop() }
        let seeded = try first.startServing(path, configuration: configuration)
        #expect(seeded.seededDatabase && Self.ids(seeded.resources, "posts") == ["1"])
        // The second server's file differs, and is not even JSON: the database already holds the data.
        let other = folder.appendingPathComponent("other.json").path
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: other))
        let second = try Self.journal(other, configuration)
        defer { second.stop() }
        let joined = try second.startServing(other, configuration: configuration)
        #expect(!joined.seededDatabase && !joined.writesBack)
        #expect(joined.resources.map(\.name) == ["posts"] && Self.ids(joined.resources, "posts") == ["1"])
        #expect(joined.seq > seeded.seq)
    }

    @Test func aFileThatIsNotJSONIsRefusedWithItsPathAndLeavesTheDatabaseEmpty() throws {
        let (folder, path, configuration) = try Self.setUp(#"{"posts": [}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let refused = try Self.journal(path, configuration)
        #expect {
            _ = try refused.startServing(path, configuration: configuration)
        } throws: { error in
            (error as? DataFileError)?.description.hasPrefix(path) == true
        }
        refused.stop()
        // Nothing was seeded: the next start with a good file fills the database.
        try Data(#"{"posts": [{"id": 7}]}"#.utf8).write(to: URL(fileURLWithPath: path))
        let journal = try Self.journal(path, configuration)
        defer { journal.stop() }
        let start = try journal.startServing(path, configuration: configuration)
        #expect(start.seededDatabase && Self.ids(start.resources, "posts") == ["7"])
    }

    @Test func aRestartSendsItsNewestEntriesThroughTheViewModelsAgainWithTheirIds() throws {
        let (folder, path, configuration) = try Self.setUp(#"{"posts": [{"id": 1}, {"id": 2}]}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try Self.journal(path, configuration)
        let start = try first.startServing(path, configuration: configuration)
        #expect(start.replay.isEmpty && start.resumeFloor == nil)
        let seqs = try first.commitBatch(after: start.seq, keys: [], until: .now() + 5) { _, _ in
            [
                JournalWrite(changes: [JournalChange(collection: "posts", id: "3", document: #"{"id":3}"#)]),
                JournalWrite(changes: [JournalChange(collection: "posts", id: "1", document: nil)]),
            ]
        }
        first.stop()
        let journal = try Self.journal(path, configuration)
        defer { journal.stop() }
        let restarted = try journal.startServing(path, configuration: configuration)
        // The items as they were before the two entries, which go through the view models again.
        #expect(Self.ids(restarted.resources, "posts") == ["1", "2"])
        #expect(restarted.replay.map(\.seq) == seqs && restarted.replay.map(\.change.id) == ["3", "1"])
        // A Last-Event-ID from the first run resumes: the events of its entries take the ids they had.
        #expect(restarted.resumeFloor == UInt64(seqs[0] - 1) * EventIDSource.journalBlock)
        #expect(!restarted.seededDatabase)
    }
}
