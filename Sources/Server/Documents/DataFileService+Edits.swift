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
    /// Looks at the file (on the writer queue): when its stamp changed and its bytes are not the server's own
    /// last write, loads it. A file the server may not load or overwrite (a symbolic link swapped in, a save
    /// past `--max-file-mb` or that does not parse) is held: reported once and left as it is, while writes go
    /// on in the journal, until a file that loads is in its place.
    func checkFile() {
        let stamp = FileStamp(path)
        let changed = sync.withLock { sync in
            defer { sync.seen = stamp }
            return stamp != sync.seen
        }
        guard changed else { return }
        if let target = swappedLink() { return hold(link: target) }
        guard let stamp else {
            Log.warning("\(path) is gone; serving the last state, the journal keeps every change")
            // NB: nothing of the person's is left to keep: the file is written again with the state.
            return release()
        }
        guard stamp.isRegularFile else {
            Log.warning("\(path) is no longer a regular file; serving the last state until it is one again")
            return
        }
        if stamp.size > Int64(store.maxFileSize) {
            let (size, limit) = (DocumentStore.megabytes(Int(stamp.size)), DocumentStore.megabytes(store.maxFileSize))
            return hold(save: "it is \(size) MB, past --max-file-mb \(limit) MB; start the server with a larger limit")
        }
        let bytes: [UInt8]
        do {
            bytes = try AtomicFile.read(path, maxBytes: Self.maxFileBytes)
        } catch {
            // NB: another error is a file that went while it was read: the watch sees what comes next.
            if error.code == EFBIG { hold(save: "it is larger than the \(Self.maxFileBytes >> 20) MB a start reads") }
            return
        }
        let hash = DataFileContent.hash(bytes)
        // The bytes the server last wrote or loaded: an undone broken save, or a link replaced by the file again.
        guard hash != sync.withLock({ $0.fileHash }) else { return release() }
        reload(bytes, hash: hash)
    }

    /// The file a symbolic link now at `path` leads to, when the server did not start with that link; nil when
    /// `path` is a file or the link it started with.
    ///
    /// NB: a link swapped in is followed neither to load nor to write: the write-back replaces the file a link
    /// leads to, and the link could lead anywhere the server may write, outside the data file's folder.
    func swappedLink() -> String? {
        guard let target = AtomicFile.linkTarget(path), target != linkAtStart else { return nil }
        return target
    }

    /// Holds the file as a symbolic link to `target` swapped in for it (see `swappedLink`).
    func hold(link target: String) {
        hold(
            "\(path) is now a symbolic link to \(target), which it was not when the server started: it is not"
                + " followed (that file is neither loaded nor written); serving the last state, writes are kept in"
                + " the journal and written back once \(path) is a file again")
    }

    /// Holds the file as a save that cannot be loaded, for `reason`.
    private func hold(save reason: String) {
        hold(
            "\(path) was saved but cannot be loaded: \(reason); serving the last good state, writes are kept in the"
                + " journal, and the file is not rewritten until it loads (then they are kept on top of it)")
    }

    /// Stops the write-back until a file that loads is in place, logging `message` once.
    private func hold(_ message: String) {
        let new = sync.withLock { sync in
            defer { sync.held = message }
            return sync.held != message
        }
        if new { Log.warning(message) }
    }

    /// Ends a hold (`hold`): the file is written back again, with every change it does not show.
    private func release() {
        let held = sync.withLock { sync in
            defer { sync.held = nil }
            return sync.held != nil
        }
        guard held else { return }
        Log.info("\(path) can be written again; it is brought up to date")
        scheduleWriteBack()
    }

    /// Loads an edited file: its differences from the served state (with the acknowledged changes the file
    /// does not show yet kept on top) are committed as ordinary changes, so they reach every client.
    private func reload(_ bytes: [UInt8], hash: String) {
        let content: DataFileContent
        do {
            content = try DataFileContent(bytes: bytes, idField: store.idField)
        } catch {
            return hold(save: error.description)
        }
        // The resources the save added or removed are served, or no longer, before its items are compared.
        changeResources(to: content)
        // NB: before the resources' changes are committed: the write-back they lead to copies the values too.
        for note in values.update(from: content, resources: Set(store.byName.keys)) { Log.warning("\(path): \(note)") }
        // NB: an editor may have read the file before the server's last rewrites and saved after them; the
        // changes of the last few seconds are kept whether or not the saved file shows them.
        let fileSeq = sync.withLock { sync in sync.shown.first.map { min($0.seq, sync.fileSeq) } ?? sync.fileSeq }
        let journal = self.journal
        let path = self.path
        let touchedAny = Mutex(false)
        let status = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        store.submit({ view throws(HTTPError) in
            // NB: read here, inside the batch, so a write committed after the save was seen is counted too.
            let unshown = journal.unshown(after: fileSeq)
            var touched = Set(unshown.map { "\($0.change.collection)/\($0.change.id ?? "")" })
            touched.formUnion(view.changedInBatch)
            if !touched.isEmpty { touchedAny.withLock { $0 = true } }
            var entries: [DocumentStore.Planned] = []
            for resource in content.resources {
                guard let model = view.store.byName[resource.name], model.kind == resource.kind else { continue }
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
            return DocumentStore.Plan(entries: entries, response: .noContent, boundsItems: false)
        }) { response in
            status.withLock { $0 = response.status }
            done.signal()
        }
        done.wait()
        switch status.withLock({ $0 }) {
        case 200..<300: break
        case 507:
            let limit = DocumentStore.megabytes(store.maxFileSize)
            return hold(save: "as written it would be past --max-file-mb \(limit) MB; start with a larger limit")
        case let refused:
            // NB: nothing of the save was committed (a journal that cannot take it): not loaded, so not overwritten.
            return hold(save: "its changes could not be committed (\(refused)); see the line before")
        }
        sync.withLock { $0.held = nil }
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
