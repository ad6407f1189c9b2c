import Dispatch
import Domain
import Foundation
import HTTP
import LibEvent
import Storage
import StrictJSON
import Synchronization

extension DataFileService {
    /// Looks at the file (on the writer queue): when its stamp changed and its bytes are not the server's own
    /// last write, loads it.
    func checkFile() {
        let stamp = FileStamp(path)
        let changed = sync.withLock { sync in
            defer { sync.seen = stamp }
            return stamp != sync.seen
        }
        guard changed else { return }
        guard let stamp else {
            Log.warning("\(path) is gone; serving the last state, the journal keeps every change")
            return
        }
        guard stamp.isRegularFile else {
            Log.warning("\(path) is no longer a regular file; serving the last state until it is one again")
            return
        }
        guard let bytes = try? Self.read(path) else { return }
        let hash = DataFileContent.hash(bytes)
        guard hash != sync.withLock({ $0.fileHash }) else { return }
        reload(bytes, hash: hash)
    }

    /// Loads an edited file: its differences from the served state (with the acknowledged changes the file
    /// does not show yet kept on top) are committed as ordinary changes, so they reach every client.
    private func reload(_ bytes: [UInt8], hash: String) {
        let content: DataFileContent
        do {
            content = try DataFileContent(bytes: bytes, idField: store.idField)
        } catch {
            Log.warning(
                "\(path) was saved but cannot be loaded: \(error.description); serving the last good state, "
                    + "and the file is not rewritten until it loads")
            sync.withLock { $0.brokenSave = true }
            return
        }
        sync.withLock { $0.brokenSave = false }
        // NB: before the resources' changes are committed: the write-back they lead to copies the values too.
        for note in values.update(from: content, resources: Set(store.byName.keys)) { Log.warning("\(path): \(note)") }
        // NB: an editor may have read the file before the server's last rewrites and saved after them; the
        // changes of the last few seconds are kept whether or not the saved file shows them.
        let fileSeq = sync.withLock { sync in sync.shown.first.map { min($0.seq, sync.fileSeq) } ?? sync.fileSeq }
        let journal = self.journal
        let path = self.path
        let touchedAny = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        store.submit({ view throws(HTTPError) in
            // NB: read here, inside the batch, so a write committed after the save was seen is counted too.
            let unshown = (try? journal?.entries(after: fileSeq)) ?? []
            var touched = Set(unshown.map { "\($0.change.collection)/\($0.change.id ?? "")" })
            touched.formUnion(view.changedInBatch)
            if !touched.isEmpty { touchedAny.withLock { $0 = true } }
            var entries: [DocumentStore.Planned] = []
            for resource in content.resources {
                guard let model = view.store.byName[resource.name], model.kind == resource.kind else {
                    Log.warning("\(path): '\(resource.name)' is new or changed kind; restart the server to serve it")
                    continue
                }
                if resource.kind == .singular {
                    let edited = resource.documents.first?.object ?? JSONObject()
                    if touched.contains("\(resource.name)/") { continue }
                    if edited != view.singular(resource.name) {
                        entries.append(.init(resource: resource.name, id: nil, document: edited))
                    }
                    continue
                }
                let current = Dictionary(view.documents(resource.name), uniquingKeysWith: { first, _ in first })
                var inFile = Set<DocumentID>()
                for document in resource.documents {
                    guard let id = document.id else { continue }
                    inFile.insert(id)
                    guard current[id] != document.object else { continue }
                    if touched.contains("\(resource.name)/\(id.key)") {
                        Log.warning(
                            "\(path): \(resource.name)/\(id.key) was changed both in the file and by a client since the "
                                + "file was last written; the client's change stays. The file's version was: "
                                + String(decoding: document.bytes, as: UTF8.self))
                        continue
                    }
                    entries.append(.init(resource: resource.name, id: id, document: document.object))
                }
                for id in current.keys where !inFile.contains(id) {
                    if touched.contains("\(resource.name)/\(id.key)") { continue }
                    entries.append(.init(resource: resource.name, id: id, document: nil))
                }
            }
            return DocumentStore.Plan(entries: entries, response: .noContent)
        }) { _ in done.signal() }
        done.wait()
        let kept = touchedAny.withLock { $0 }
        sync.withLock { sync in
            sync.fileHash = hash
            // The file now differs from the state only by the client changes kept on top: write it back.
            if kept { sync.fileSeq = 0 }
        }
        Log.info("\(path) changed on disk: loaded")
        if kept || sync.withLock({ $0.committedSeq > $0.fileSeq }) { scheduleWriteBack() }
    }

    /// How far back a person's save is assumed to have been read: changes made since are never undone by it.
    static let editorWindow: UInt64 = 3_000_000_000
}
