import Dispatch
import Domain
import Foundation
import HTTP
import LibEvent
import Storage
import StrictJSON
import Support
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
    /// Where `path` led when the server started, when it was a symbolic link; nil when it was the file itself.
    /// Another link in its place is not followed (`swappedLink`).
    let linkAtStart: String?
    /// The journal id this run started at: every entry above it is committed in this run.
    let startSeq: Int64

    struct Sync {
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
        /// Why the file on disk is held (a save that cannot be loaded, a symbolic link swapped in): it is left
        /// as it is, neither loaded nor overwritten, until a file that loads is in its place; nil: not held.
        var held: String?
        /// How long the last rewrite took.
        var lastRewriteMilliseconds = 0
        /// When a rewrite past a second was last logged.
        var slowLogged: DispatchTime?
        /// When the file came to show each entry (newest last, a few seconds' worth): what a person's
        /// editor may have read.
        var shown: [(at: DispatchTime, seq: Int64)] = []
    }

    /// Where the checkpoints are kept: the journal's own database.
    let checkpoints: any DocumentCheckpoints
    /// This server's file filled the PostgreSQL database: its start is the state a reset goes back to.
    let seededDatabase: Bool
    /// The most checkpoints kept (`--max-checkpoints`).
    let maxCheckpoints: Int
    /// The resets and checkpoints, made once (`resets`).
    let resetsMade = Mutex<DocumentResets?>(nil)
    /// The resources' topics since a person's save added or removed some (nil: `topics`), and the next topic's
    /// slot (nil: after `topics`): a slot is never given twice, so a client of a removed topic hears nothing
    /// of one added later.
    let served = Mutex<(topics: [EventTopic]?, nextSlot: Int?)>((nil, nil))
    /// Told of each change of the set of resources (`App` attaches the new topics, ends the removed ones'
    /// streams and rebuilds the routes).
    let onResources = Mutex<(@Sendable (ResourceChange) -> Void)?>(nil)
    /// The file's SQLite journal; nil when the data lives in PostgreSQL (`database`).
    let journal: SQLiteDocumentJournal?
    /// The PostgreSQL database several servers share; nil with an SQLite journal.
    let database: PostgresDocumentJournal?
    let sync: Mutex<Sync>
    let writer = DispatchQueue(label: "livestate-datafile-writer")
    /// Encodes and hashes the rewrites, at the lowest CPU priority: the fan-out and the commits come first.
    let encoder = BackgroundThread(name: "livestate-datafile-encoder")
    let watch = Mutex<FolderWatch?>(nil)
    /// The entries `start(on:)` sends through the view models, taken once.
    let replay: Mutex<[JournalEntry]>

    /// Loads `path` (created with an example when missing) and reconciles it with the journal at `dataPath`.
    init(path: String, dataPath: String, configuration: Configuration) throws {
        self.path = path
        writesBack = dataPath != ":memory:"
        linkAtStart = AtomicFile.linkTarget(path)
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: Data(DataFileContent.example.utf8)) else {
                throw DataFileError("\(path) does not exist and cannot be created")
            }
            Log.info("\(path) did not exist: created it with an example (posts, comments, profile)")
        }
        if writesBack { try DataFileMount.refuseSingleFile(path) }
        let content = try Self.load(path, idField: configuration.idField)
        let journal: SQLiteDocumentJournal
        do {
            journal = try SQLiteDocumentJournal(path: dataPath, retention: configuration.journalRetention)
        } catch {
            throw DataFileError(error.description)
        }
        self.journal = journal
        checkpoints = journal
        seededDatabase = false
        maxCheckpoints = configuration.maxCheckpoints
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
        store.onCommit.withLock { $0.call = { seq in service.value?.committed(seq) } }
        service.value = self
        if !writesBack {
            Log.info("\(path): --data :memory: keeps nothing; the file is left as it is")
        } else if dirty, replay.entries.isEmpty {
            scheduleWriteBack()
        }
    }

    /// Serves the resources of the PostgreSQL database at `uri`, which several servers share: `path` fills an
    /// empty database once (a missing file: the example); from then on the database is the truth, and the file
    /// is neither read, written back nor watched (docs/own-data.md, "Several instances").
    init(path: String, database uri: String, configuration: Configuration) throws {
        self.path = path
        writesBack = false
        linkAtStart = nil
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
        seededDatabase = start.seeded
        maxCheckpoints = configuration.maxCheckpoints
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
