import Dispatch
import Domain
import Foundation
import HTTP
import LibEvent
import Storage
import StrictJSON
import Support
import Synchronization

extension DataFileService {
    /// How many entries after the file's mark a start reads at a time.
    static let loadPage = 256

    /// With `--data postgres://…`: the value resources (and `$schema`) of this server's own file, which the
    /// database does not hold (it holds items): `seed`'s when this server seeded the database, else the file's
    /// read now; none when there is no file or it cannot be read (logged). A name the database serves as a
    /// resource stays the database's.
    static func ownValues(
        _ path: String, seed: DataFileContent?, resources: Set<String>, idField: String
    ) -> DataFileValues {
        var content = seed
        if content == nil, FileManager.default.fileExists(atPath: path) {
            do throws(DataFileError) {
                content = try load(path, idField: idField)
            } catch {
                Log.warning("\(error.description); its lists of values are not served")
            }
        }
        let values = DataFileValues(content?.values ?? [], order: content?.order ?? [], resources: resources)
        if !values.served.isEmpty {
            Log.info(
                "\(path): the lists of values (\(values.served.joined(separator: ", "))) are served as this file holds"
                    + " them, read-only: they are not in the database, and other servers serve their own file's")
        }
        return values
    }

    /// The resources' topics and the store of their view models.
    static func store(
        _ resources: [DataFileContent.Resource], journal: any DocumentJournal, appliedSeq: Int64,
        configuration: Configuration
    ) -> ([EventTopic], DocumentStore) {
        let topics = resources.enumerated().map { index, resource in
            EventTopic.document(resource.name, index: index, collection: resource.kind == .collection)
        }
        let models = resources.map { $0.model() }
        let store = DocumentStore(
            resources: models, journal: journal, appliedSeq: appliedSeq, idField: configuration.idField,
            foreignKeySuffix: configuration.foreignKeySuffix, maxFileSize: configuration.maxFileSize)
        let size = models.reduce(0) { $0 + $1.fileSize }
        if size > configuration.maxFileSize {
            Log.warning(
                "the data file is \(size >> 20) MB as written, past --max-file-mb \(configuration.maxFileSize >> 20):"
                    + " writes that grow it are refused (507) until deletes shrink it")
        }
        return (topics, store)
    }

    /// The largest data file read: far above the 100 MB the server is measured with, below what would
    /// exhaust memory by surprise.
    static let maxFileBytes = 1 << 30

    /// Reads and checks the file at `path`, a part at a time.
    ///
    /// NB: a part at a time: a large file is never held whole beside its items (docs/benchmarks.md).
    static func load(_ path: String, idField: String) throws(DataFileError) -> DataFileContent {
        let parts: AtomicFile.Parts
        do {
            parts = try AtomicFile.parts(path, maxBytes: Self.maxFileBytes)
        } catch {
            throw DataFileError("\(path) cannot be read: \(error)")
        }
        let content: DataFileContent
        do {
            content = try DataFileContent(
                parts: { () throws(DataFileError) in
                    do {
                        return try parts.next(upTo: DataFileContent.partSize)
                    } catch {
                        throw DataFileError("cannot be read: \(error)")
                    }
                },
                whole: { () throws(DataFileError) in
                    do {
                        return try AtomicFile.read(path, maxBytes: Self.maxFileBytes)
                    } catch {
                        throw DataFileError("cannot be read: \(error)")
                    }
                }, idField: idField, size: FileIdentity(path).map { Int($0.size) })
        } catch {
            throw DataFileError("\(path): \(error.description)")
        }
        // NB: a line per item, up to a screenful: a file with thousands of them says how many more there are.
        for renamed in content.renamedIDs.prefix(20) { Log.info("\(path): \(renamed)") }
        if content.renamedIDs.count > 20 {
            Log.info("\(path): \(content.renamedIDs.count - 20) more items had an earlier item's id and have a new one")
        }
        return content
    }

    static func read(_ path: String) throws -> [UInt8] {
        do {
            return try AtomicFile.read(path, maxBytes: maxFileBytes)
        } catch {
            throw DataFileError("\(path) cannot be read: \(error)")
        }
    }

    /// The item a journal entry or a database row holds; an error when it is not an object.
    static func object(_ body: String) throws -> JSONObject {
        guard case .object(let object) = try JSONValue(parsing: Array(body.utf8), maxDepth: 256) else {
            throw DataFileError("the journal holds an item that is not an object")
        }
        return object
    }
}

extension DocumentID {
    /// This id with the value the item holds (a number stays a number, `"1"` stays a string).
    func withValue(_ value: JSONValue?) -> DocumentID {
        if let value, let id = DocumentID(value), id.key == key { return id }
        return self
    }
}

/// What the watch compares: the file's kind, size and modification time.
typealias FileStamp = FileIdentity

extension FileIdentity {
    /// The identity of the file at `path` now, or nil when there is none.
    init?(_ path: String) {
        guard let identity = AtomicFile.identity(path) else { return nil }
        self = identity
    }
}
