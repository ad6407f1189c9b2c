import Dispatch
import Domain
import Foundation
import HTTP
import LibEvent
import Storage
import StrictJSON
import Synchronization

/// A user's data file served: loaded at start, its resources' view models, the store their writes go
/// through, and the file kept in step both ways — every committed change written back into the file
/// (whole and atomically) within a second, and a person's edit of the file loaded and broadcast as ordinary
/// changes.
///
/// At start the file and the journal are reconciled: when the file is as the server last wrote it, the
/// journal (which may hold acknowledged changes the file does not show yet, after `kill -9`) is the state;
/// when a person changed the file meanwhile, the file is the state, with the journal's changes it does not
/// show put back on top of it. A person's edit while the server runs is treated the same way (see
/// `reload`), so neither side's change is lost; where both changed the same item since the file was last
/// written, the client's acknowledged change stays and the person's version of that item is written to
/// the log in full.
///
/// The file's lists of values and `$schema` (`values`) are not journaled: no client writes them, so the file
/// is their truth at start and after each save, and each rewrite copies them as the file last held them.
final class DataFileService: Sendable {
    /// The data file's path.
    let path: String
    /// The store of the file's resources.
    let store: DocumentStore
    /// The resources' `/events` topics, in the file's order.
    let topics: [EventTopic]
    /// Whether the file is written back (not with `--data :memory:`).
    let writesBack: Bool
    /// The event ids: each entry's event takes its journal id's block; others the ids after this run's.
    let ids: EventIDSource
    /// The recent events of the last run, when it stopped cleanly and nothing changed since (the file's mark,
    /// its bytes, no entry after them): the hub puts them back, so `Last-Event-ID` resumes across the restart.
    let restoredEvents: [EventRecord]
    /// The file's value resources and `$schema`, as the file last held them, and the order of its keys.
    let values: DataFileValues
    /// After `kill -9` (SQLite), or any restart (PostgreSQL): the event id from which a `Last-Event-ID`
    /// resumes from the events the start makes again (`EventHub.holdsEverything(after:)`); nil when the start
    /// replays nothing.
    let resumeFloor: UInt64?
    /// The journal id this run started at: every entry above it is committed in this run.
    private let startSeq: Int64

    private struct Sync {
        /// The newest committed entry.
        var committedSeq: Int64
        /// The newest entry the file shows.
        var fileSeq: Int64
        /// The hash of the file's bytes as the server last read or wrote them.
        var fileHash: String
        /// A write-back is scheduled.
        var scheduled = false
        /// The last identity of the file seen by the watch (size, modification time).
        var seen: FileStamp?
        /// The file on disk is a person's save that does not parse: it is not overwritten until fixed.
        var brokenSave = false
        /// How long the last rewrite took.
        var lastRewriteMilliseconds = 0
        /// When the file came to show each entry (newest last, a few seconds' worth): what a person's
        /// editor may have read.
        var shown: [(at: DispatchTime, seq: Int64)] = []
    }

    /// Where the checkpoints are kept: the journal's own database.
    let checkpoints: any DocumentCheckpoints
    /// The file's SQLite journal; nil when the data lives in PostgreSQL (`database`).
    private let journal: SQLiteDocumentJournal?
    /// The PostgreSQL database several servers share; nil with an SQLite journal.
    private let database: PostgresDocumentJournal?
    private let sync: Mutex<Sync>
    private let writer = DispatchQueue(label: "livestate-datafile-writer")
    /// Encodes and hashes the rewrites, at the lowest CPU priority: the fan-out and the commits come first.
    private let encoder = BackgroundThread(name: "livestate-datafile-encoder")
    private let watch = Mutex<FolderWatch?>(nil)
    /// The entries `start(on:)` sends through the view models, taken once.
    private let replay: Mutex<[JournalEntry]>

    /// Loads `path` (created with an example when missing) and reconciles it with the journal at `dataPath`.
    init(path: String, dataPath: String, configuration: Configuration) throws {
        self.path = path
        writesBack = dataPath != ":memory:"
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: Data(DataFileContent.example.utf8)) else {
                throw DataFileError("\(path) does not exist and cannot be created")
            }
            Log.info("\(path) did not exist: created it with an example (posts, comments, profile)")
        }
        let content = try Self.load(path, idField: configuration.idField)
        let journal: SQLiteDocumentJournal
        do {
            journal = try SQLiteDocumentJournal(path: dataPath, retention: configuration.journalRetention)
        } catch {
            throw DataFileError(error.description)
        }
        self.journal = journal
        checkpoints = journal
        database = nil
        values = DataFileValues(content.values, order: content.order, resources: [])
        // The file and the entries after its last mark are the state (see `SQLiteDocumentJournal`).
        var resources = content.resources
        var dirty = content.assignedIDs
        var replay = Replay(floor: nil, entries: [])
        let mark = try journal.fileMark()
        if let mark {
            let asWritten = mark.hash == content.hash && !content.assignedIDs
            // After `kill -9`: the file is as the server wrote it, so the newest entries go through the view
            // models once the hub listens (`start(on:)`), which make their events again.
            let replays = asWritten && mark.top != nil
            // NB: a page at a time, holding only the newest ones a replay may take: a file that could not be
            // written for long (a person's broken save, a full disk) may have any number of entries after its
            // mark, and reading them at once would take memory without bound.
            var (held, applied, lastApplied) = ([JournalEntry](), 0, mark.seq)
            var loaded = ResourcesAfterEntries(resources, idField: configuration.idField)
            var after = mark.seq
            while true {
                let page = try journal.entries(after: after, limit: Self.loadPage)
                held += page
                let older = held.count - (replays ? Self.replayable(held) : 0)
                if older > 0 {
                    try loaded.apply(held[..<older])
                    (applied, lastApplied) = (applied + older, held[older - 1].seq)
                    held.removeFirst(older)
                }
                guard page.count == Self.loadPage, let last = page.last else { break }
                after = last.seq
            }
            if applied + held.count > 0 {
                dirty = true
                if replays, let top = mark.top {
                    replay = Self.replay(&held, top: top, last: lastApplied, count: EventLog.defaultCount)
                }
                try loaded.apply(held[...])
                resources = loaded.resources
                let count = applied + held.count + replay.entries.count
                Log.info(
                    mark.hash == content.hash
                        ? "\(path): \(count) acknowledged change(s) the file did not show yet were put back"
                        : "\(path) was edited while stopped; \(count) change(s) it did not show were kept")
            }
        }
        let firstEvent = replay.entries.first.map { UInt64($0.seq - 1) } ?? UInt64(journal.startSeq)
        let ids = EventIDSource(journalFloor: firstEvent * EventIDSource.journalBlock)
        self.ids = ids
        self.replay = Mutex(replay.entries)
        resumeFloor = replay.floor.map { UInt64($0) * EventIDSource.journalBlock }
        startSeq = journal.startSeq
        // A clean stop's events lead exactly here only if the file is as that stop left it and nothing was
        // committed after it; they are taken out either way.
        var saved = try journal.takeEvents()
        if let found = saved,
            mark == nil || dirty || found.seq != mark?.seq || found.hash != mark?.hash
                || content.hash != mark?.hash
        {
            saved = nil
        }
        // NB: a file that does not show the state yet keeps its old mark until it is written, so the entries
        // it lacks are put back again if the server dies first.
        if !dirty { try journal.markFile(seq: journal.startSeq, hash: content.hash, top: journal.startSeq) }
        let fileSeq = dirty ? (mark?.seq ?? 0) : journal.startSeq
        (topics, store) = Self.store(
            resources, journal: journal, appliedSeq: journal.startSeq, configuration: configuration)
        let byName = Dictionary(uniqueKeysWithValues: topics.map { ($0.rawValue, $0) })
        restoredEvents = (saved?.events ?? []).compactMap { event in
            guard event.id > 0, let topic = byName[event.topic] else { return nil }
            return EventRecord(
                id: UInt64(event.id), topic: topic, frame: Array(event.frame.utf8),
                diffFrame: event.diffFrame.map { Array($0.utf8) })
        }
        sync = Mutex(
            Sync(
                committedSeq: journal.startSeq, fileSeq: fileSeq, fileHash: content.hash,
                seen: FileStamp(path)))
        let service = WeakBox<DataFileService>()
        store.onCommit.withLock { $0 = { seq in service.value?.committed(seq) } }
        service.value = self
        if !writesBack {
            Log.info("\(path): --data :memory: keeps nothing; the file is left as it is")
        } else if dirty, replay.entries.isEmpty {
            scheduleWriteBack()
        }
    }

    /// The entries a start sends through the view models (`start(on:)`), and the event id a resume is served
    /// from the log after.
    private struct Replay {
        /// The journal id after which every entry is replayed (its events made again); nil: none is.
        var floor: Int64?
        /// The entries, oldest first.
        var entries: [JournalEntry]
    }

    /// How many entries after the file's mark a start reads at a time.
    private static let loadPage = 256

    /// How many of the newest of `entries` (oldest first) a replay may send through the view models: at most
    /// the recent-events log's count, and their items within twice its bytes (the newest always), so that what
    /// a start holds for it is bounded as the log is.
    private static func replayable(_ entries: [JournalEntry]) -> Int {
        var (count, bytes) = (0, 0)
        for entry in entries.reversed() {
            let size = entry.change.document?.utf8.count ?? 0
            guard count < EventLog.defaultCount, count == 0 || bytes + size <= 2 * EventLog.defaultBytes else { break }
            (count, bytes) = (count + 1, bytes + size)
        }
        return count
    }

    /// Splits `unshown` (the entries after the file's mark `last`, oldest first) into those applied to the
    /// file's items at load, left in `unshown`, and at most `count` newest ones to replay, whose events a
    /// `Last-Event-ID` from `floor` on resumes from.
    ///
    /// The file may show some entries between its mark and `top` (they were committed while the write-back
    /// read the items), so a resume is served only from `top` on: replayed again, such an entry changes
    /// nothing or its item only until its next entry, and its event is below every id served from the log.
    private static func replay(_ unshown: inout [JournalEntry], top: Int64, last: Int64, count: Int) -> Replay {
        let replayed = Array(unshown.suffix(count))
        unshown.removeLast(replayed.count)
        let floor = max(top, unshown.last?.seq ?? last)
        guard let newest = replayed.last, newest.seq > floor else {
            unshown += replayed
            return Replay(floor: nil, entries: [])
        }
        return Replay(floor: floor, entries: replayed)
    }

    /// Serves the resources of the PostgreSQL database at `uri`, which several servers share: `path` fills an
    /// empty database once (a missing file: the example); from then on the database is the truth, and the file
    /// is neither read, written back nor watched (docs/own-data.md, "Several instances").
    init(path: String, database uri: String, configuration: Configuration) throws {
        self.path = path
        writesBack = false
        let database: PostgresDocumentJournal
        do {
            database = try PostgresDocumentJournal(uri: uri, retention: configuration.journalRetention)
        } catch {
            throw DataFileError("cannot start the PostgreSQL connection: \(error)")
        }
        var seed: DataFileContent?
        // NB: twice the recent-events log's bytes: the events of the entries read fill it, and none past it.
        let start = try database.start(source: path, recent: (EventLog.defaultCount, 2 * EventLog.defaultBytes)) {
            let exists = FileManager.default.fileExists(atPath: path)
            let bytes = exists ? try Self.read(path) : Array(DataFileContent.example.utf8)
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
                    let object = try Self.object(body)
                    let id: DocumentID? =
                        rows.kind == .singular
                        ? nil : DocumentID(pathSegment: key).withValue(object[configuration.idField])
                    return StoredDocument(id: id, object: object)
                })
        }
        journal = nil
        self.database = database
        checkpoints = database
        restoredEvents = []
        let floor = rewind.entries.first.map { $0.seq - 1 }
        resumeFloor = floor.map { UInt64($0) * EventIDSource.journalBlock }
        replay = Mutex(rewind.entries)
        startSeq = start.seq
        if let floor {
            Log.info(
                "the newest \(rewind.entries.count) change(s), after entry \(floor), go through the view models"
                    + " again: a Last-Event-ID from before this start resumes")
        }
        values = Self.ownValues(path, seed: seed, resources: Set(resources.map(\.name)), idField: configuration.idField)
        ids = EventIDSource(journalFloor: UInt64(floor ?? start.seq) * EventIDSource.journalBlock)
        (topics, store) = Self.store(resources, journal: database, appliedSeq: start.seq, configuration: configuration)
        sync = Mutex(Sync(committedSeq: start.seq, fileSeq: start.seq, fileHash: "", seen: nil))
    }

    /// With `--data postgres://…`: the value resources (and `$schema`) of this server's own file, which the
    /// database does not hold (it holds items): `seed`'s when this server seeded the database, else the file's
    /// read now; none when there is no file or it cannot be read (logged). A name the database serves as a
    /// resource stays the database's.
    private static func ownValues(
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
    private static func store(
        _ resources: [DataFileContent.Resource], journal: any DocumentJournal, appliedSeq: Int64,
        configuration: Configuration
    ) -> ([EventTopic], DocumentStore) {
        let topics = resources.enumerated().map { index, resource in
            EventTopic.document(resource.name, index: index, collection: resource.kind == .collection)
        }
        let models = resources.map {
            DocumentResource(name: $0.name, kind: $0.kind, documents: $0.documents, indentation: $0.indentation)
        }
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

    /// Once the hub listens to the view models: replays through them the acknowledged entries the file did not
    /// show (after `kill -9`), or on PostgreSQL the newest entries (`DocumentRewind`), as their commits did, so
    /// their events are made again with their ids; then follows the other servers' commits (PostgreSQL), or
    /// has the file written and starts watching its folder for a person's edits (inotify, on `loop`: an
    /// editor's save by rename, a write in place, a `git checkout`; each is looked at on the writer queue).
    func start(on loop: EventLoop) throws {
        let entries = replay.withLock { entries in
            defer { entries = [] }
            return entries
        }
        if let last = entries.last {
            store.replay(entries)
            ids.raise(to: UInt64(max(last.seq, startSeq)) * EventIDSource.journalBlock)
            scheduleWriteBack()
        }
        // NB: only now: the other servers' entries go after the replayed ones, into the state they lead to.
        database?.follow { [store] in store.catchUp() }
        guard writesBack else { return }
        let name = URL(fileURLWithPath: path).lastPathComponent
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let watch = try FolderWatch(
            loop: loop, folder: folder,
            onChange: { [weak self] names in
                guard let self, names.contains(name) else { return }
                writer.async { self.checkFile() }
            },
            onFolderGone: { [path] in
                Log.warning(
                    "the folder of \(path) is gone; edits are no longer watched, the journal keeps every change")
            })
        self.watch.withLock { $0 = watch }
    }

    /// Stops the watch, writes back what the file does not show yet and saves `events` (the recent events,
    /// oldest first) with the state they lead to, for the next start (shutdown).
    func stop(saving events: [EventRecord] = []) {
        watch.withLock { watch in
            watch?.cancel()
            watch = nil
        }
        writer.sync { writeBack() }
        if let journal, writesBack {
            do {
                if let mark = try journal.fileMark(), sync.withLock({ $0.fileSeq >= $0.committedSeq }) {
                    let saved = events.map { record in
                        SQLiteDocumentJournal.SavedEvent(
                            id: Int64(record.id), topic: record.topic.rawValue,
                            frame: String(decoding: record.frame.bytes, as: UTF8.self),
                            diffFrame: record.diffFrame.map { String(decoding: $0.bytes, as: UTF8.self) })
                    }
                    try journal.saveEvents(saved, seq: mark.seq, hash: mark.hash)
                }
            } catch {
                Log.warning("\(path): the recent events were not saved (\(error)); a restart serves current values")
            }
        }
        journal?.checkpoint()
        database?.stop()
    }

    // MARK: Write-back

    private func committed(_ seq: Int64) {
        sync.withLock { $0.committedSeq = max($0.committedSeq, seq) }
        scheduleWriteBack()
    }

    private func scheduleWriteBack() {
        guard writesBack else { return }
        let schedule = sync.withLock { sync in
            defer { sync.scheduled = true }
            return !sync.scheduled
        }
        // NB: 500 ms gathers a burst of writes into one rewrite; a large file waits as long as its last rewrite
        // took (at most 800 ms), so rewrites take at most half of a core and the file is within ~1 s.
        let wait = min(800, max(500, sync.withLock { $0.lastRewriteMilliseconds }))
        if schedule { writer.asyncAfter(deadline: .now() + .milliseconds(wait)) { [weak self] in self?.writeBack() } }
    }

    /// Writes the whole state into the file (on the writer queue), if it shows less than what is committed.
    private func writeBack() {
        let wanted = sync.withLock { sync in
            sync.scheduled = false
            return sync.committedSeq > sync.fileSeq ? sync.committedSeq : nil
        }
        guard var seq = wanted, writesBack else { return }
        let started = DispatchTime.now()
        var bytes: [UInt8] = []
        var hash = ""
        var top = seq
        while true {
            // A person's save the watch has not seen yet is loaded first, so the rewrite cannot undo it; the
            // check is made again right before the rename (a save meanwhile is loaded, then all is encoded).
            if FileStamp(path) != sync.withLock({ $0.seen }) { checkFile() }
            if sync.withLock({ $0.brokenSave }) { return }
            seq = sync.withLock { max($0.committedSeq, seq) }
            // NB: items are read after `seq` was: the file shows at least every entry up to it.
            let state = currentState()
            top = state.top
            (bytes, hash) = encoder.run {
                let bytes = state.encoded()
                return (bytes, DataFileContent.hash(bytes))
            }
            let seen = sync.withLock { $0.seen }
            do {
                if try AtomicFile.replace(path, with: bytes, stillWanted: { FileStamp(path) == seen }) { break }
            } catch {
                Log.error("\(path) not written (\(error)); the journal keeps every change, retrying in 1 s")
                writer.asyncAfter(deadline: .now() + 1) { [weak self] in self?.writeBack() }
                return
            }
        }
        sync.withLock { sync in
            sync.shown.append((.now(), sync.fileSeq))
            sync.fileSeq = max(sync.fileSeq, seq)
            sync.fileHash = hash
            sync.seen = FileStamp(path)
            sync.lastRewriteMilliseconds = Int(
                (DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000)
            let horizon = DispatchTime.now().uptimeNanoseconds &- Self.editorWindow
            while sync.shown.count > 1, sync.shown[1].at.uptimeNanoseconds < horizon { sync.shown.removeFirst() }
        }
        do {
            try journal?.markFile(seq: seq, hash: hash, top: top)
        } catch {
            Log.error("journal: cannot record the file's write-back: \(error.description)")
        }
    }

    // MARK: Snapshots

    /// Saves the resources as they are now into a new file `db-<milliseconds since 1970>.json` in `folder`,
    /// laid out as the data file is written (json-server's snapshot, `s` + Enter); answers its path.
    ///
    /// The snapshot is taken on the writer queue, so it never runs beside a rewrite of the file, and written
    /// as the file is (a temporary file, fsync, rename): a crash leaves no half snapshot.
    func saveSnapshot(into folder: String, now: Date = Date()) throws(AtomicFileError) -> String {
        let name = "db-\(Int64(now.timeIntervalSince1970 * 1000)).json"
        let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
        let bytes = writer.sync { () -> [UInt8] in
            let state = currentState()
            return encoder.run { state.encoded() }
        }
        try AtomicFile.replace(path, with: bytes)
        return path
    }

    /// The resources' items and the file's values as they are now, and the newest entry the items may show
    /// (read after them: they show no entry after it); what the file and a snapshot are written from.
    private func currentState() -> FileState {
        let resources = store.resources.map { (name: $0.name, kind: $0.kind, items: $0.items) }
        let top = store.newestSent
        let kept = values.snapshot
        return FileState(resources: resources, values: kept.values, order: kept.order, top: top)
    }

    /// What `currentState` read.
    private struct FileState: Sendable {
        var resources: [(name: String, kind: DocumentResource.Kind, items: DocumentItems)]
        var values: [DataFileValue]
        var order: [String]
        var top: Int64

        /// The bytes of the file laid out as json-server writes it.
        func encoded() -> [UInt8] {
            DataFileContent.fileBytes(resources, values: values, order: order)
        }
    }

    // MARK: A person's edits

    /// Looks at the file (on the writer queue): when its stamp changed and its bytes are not the server's own
    /// last write, loads it.
    private func checkFile() {
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
    private static let editorWindow: UInt64 = 3_000_000_000

    // MARK: Helpers

    /// The largest data file read: far above the 100 MB the server is measured with, below what would
    /// exhaust memory by surprise.
    static let maxFileBytes = 1 << 30

    /// Reads and checks the file at `path`, a part at a time.
    ///
    /// NB: a part at a time: a large file is never held whole beside its items (docs/benchmarks.md).
    private static func load(_ path: String, idField: String) throws(DataFileError) -> DataFileContent {
        let parts: AtomicFile.Parts
        do {
            parts = try AtomicFile.parts(path, maxBytes: Self.maxFileBytes)
        } catch {
            throw DataFileError("\(path) cannot be read: \(error)")
        }
        do {
            return try DataFileContent(
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
                }, idField: idField)
        } catch {
            throw DataFileError("\(path): \(error.description)")
        }
    }

    private static func read(_ path: String) throws -> [UInt8] {
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

/// A weak reference that can be set after the closure holding it is made (`init`'s callbacks to `self`).
private final class WeakBox<T: AnyObject & Sendable>: Sendable {
    private let reference = Mutex<Weak?>(nil)
    private struct Weak: @unchecked Sendable {
        // NB: @unchecked: a weak reference to a Sendable object.
        weak var value: T?
    }

    var value: T? {
        get { reference.withLock { $0?.value } }
        set { reference.withLock { $0 = Weak(value: newValue) } }
    }
}
