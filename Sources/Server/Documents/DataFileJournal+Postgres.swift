import Domain
import Foundation
import Storage
import StrictJSON
import Support

/// A data file's PostgreSQL database, which several servers share: `path` fills an empty database once (a
/// missing file: the example); from then on the database is the truth, and the file is neither read, written
/// back nor watched (docs/own-data.md, "Several instances").
extension PostgresDocumentJournal: DataFileJournal {
    func startServing(_ path: String, configuration: Configuration) throws -> DataFileStart {
        var seed: DataFileContent?
        // NB: twice the recent-events log's bytes: the events of the entries read fill it, and none past it.
        let start = try start(source: path, recent: (EventLog.defaultCount, 2 * EventLog.defaultBytes)) {
            let exists = FileManager.default.fileExists(atPath: path)
            let bytes = exists ? try DataFileService.read(path) : Array(DataFileContent.example.utf8)
            do throws(DataFileError) {
                let content = try DataFileContent(bytes: bytes, idField: configuration.idField)
                seed = content
                return content.resources.map { resource in
                    DocumentRows(
                        name: resource.name, kind: resource.kind,
                        items: resource.documents.map { ($0.id?.key ?? "", String(decoding: $0.bytes, as: UTF8.self)) })
                }
            } catch {
                throw DataFileError("\(path): \(error.description)")
            }
        }
        Log.info(
            start.seeded
                ? "data file \(path) seeded the database; the database is the truth, the file is not written back"
                : "the database already holds the data (\(path) was not read); the database is the truth, "
                    + "the file is not written back")
        // The state before the newest entries, which `start(on:)` sends into the view models again, so their
        // events are made again with their ids, as the running servers hold them.
        let rewind = DocumentRewind(start.resources, recent: start.recent, count: EventLog.defaultCount)
        let resources = try rewind.resources.map { rows in
            DataFileContent.Resource(
                name: rows.name, kind: rows.kind,
                documents: try rows.items.map { key, body -> StoredDocument in
                    let object = try DataFileService.object(body)
                    let id: DocumentID? =
                        rows.kind == .singular
                        ? nil : DocumentID(pathSegment: key).withValue(object[configuration.idField])
                    return StoredDocument(id: id, object: object)
                })
        }
        let floor = rewind.entries.first.map { $0.seq - 1 }
        if let floor {
            Log.info(
                "the newest \(rewind.entries.count) change(s), after entry \(floor), go through the view models"
                    + " again: a Last-Event-ID from before this start resumes")
        }
        let values = DataFileService.ownValues(
            path, seed: seed, resources: Set(resources.map(\.name)), idField: configuration.idField)
        return DataFileStart(
            resources: resources, seq: start.seq, values: values, writesBack: false, linkAtStart: nil,
            ids: EventIDSource(journalFloor: UInt64(floor ?? start.seq) * EventIDSource.journalBlock),
            replay: rewind.entries, resumeFloor: floor.map { UInt64($0) * EventIDSource.journalBlock },
            savedEvents: [],
            sync: DataFileService.Sync(committedSeq: start.seq, fileSeq: start.seq, fileHash: "", seen: nil),
            seededDatabase: start.seeded)
    }

    /// None: the file is not written back.
    func unshown(after seq: Int64) -> [JournalEntry] { [] }

    /// Nothing: the file is not written back.
    func markFile(seq: Int64, hash: String) throws(JournalError) {}

    /// Nothing: the file is not written back.
    func markPendingFile(seq: Int64, hash: String) throws(JournalError) {}

    /// Stops following and closes the connection; nothing is saved (the database holds the events' entries).
    func stopServing() {
        stop()
    }
}
