import Domain
import Foundation
import Storage
import Testing

@testable import Server

/// `DataFileService` over the journal `journal(for:configuration:)` opens: a missing file is created with the
/// example, the file is served as it is, and only a durable journal has it written back.
@Suite struct DataFileServiceTests {
    /// A new folder for one test, and the configuration of a file `db.json` in it with `dataPath`.
    private static func folder(dataPath: (String) -> String) throws -> (URL, String, Configuration) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-service-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("db.json").path
        var configuration = Configuration()
        configuration.dataFile = path
        configuration.dataPath = dataPath(path)
        return (folder, path, configuration)
    }

    @Test func aMissingFileIsCreatedWithTheExampleAndServedFromItsJournal() throws {
        let (folder, path, configuration) = try Self.folder { $0 + ".livestate" }
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = try DataFileService.journal(for: path, configuration: configuration)
        #expect(FileManager.default.fileExists(atPath: path))
        let service = try DataFileService(path: path, journal: journal, configuration: configuration)
        defer { service.stop() }
        #expect(service.writesBack)
        #expect(Set(service.store.byName.keys) == ["posts", "comments", "profile"])
        #expect(FileManager.default.fileExists(atPath: path + ".livestate"))
    }

    @Test func aFileServedInMemoryIsNotWrittenBack() throws {
        let (folder, path, configuration) = try Self.folder { _ in ":memory:" }
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"posts": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let service = try DataFileService(
            path: path, journal: try DataFileService.journal(for: path, configuration: configuration),
            configuration: configuration)
        defer { service.stop() }
        #expect(!service.writesBack)
        #expect(service.store.byName["posts"]?.items.count == 2)
    }
}
