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
    /// The recent events the clean stop of an older LiveState saved, at the first start after the upgrade when
    /// nothing changed since (the file's mark, its bytes, no entry after them): the hub puts them back once.
    let restoredEvents: [EventRecord]
    /// The file's value resources and `$schema`, as the file last held them, and the order of its keys.
    let values: DataFileValues
    /// After a restart: the event id from which a `Last-Event-ID`
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
    /// The journal: an SQLite file beside the data file, or the PostgreSQL database several servers share.
    let journal: any DataFileJournal
    let sync: Mutex<Sync>
    let writer = DispatchQueue(label: "livestate-datafile-writer")
    /// Encodes and hashes the rewrites, at the lowest CPU priority: the fan-out and the commits come first.
    let encoder = BackgroundThread(name: "livestate-datafile-encoder")
    let watch = Mutex<FolderWatch?>(nil)
    /// The entries `start(on:)` sends through the view models, taken once.
    let replay: Mutex<[JournalEntry]>

    /// Serves the file at `path` from `journal` (`journal(for:configuration:)`): reads the file (or, on
    /// PostgreSQL, fills an empty database with it) and reconciles it with the journal (`startServing`).
    init(path: String, journal: any DataFileJournal, configuration: Configuration) throws {
        self.path = path
        self.journal = journal
        let start = try journal.startServing(path, configuration: configuration)
        writesBack = start.writesBack
        linkAtStart = start.linkAtStart
        checkpoints = journal
        seededDatabase = start.seededDatabase
        maxCheckpoints = configuration.maxCheckpoints
        values = start.values
        ids = start.ids
        replay = Mutex(start.replay)
        resumeFloor = start.resumeFloor
        startSeq = start.seq
        (topics, store) = Self.store(
            start.resources, journal: journal, appliedSeq: start.seq, configuration: configuration)
        let byName = Dictionary(uniqueKeysWithValues: topics.map { ($0.rawValue, $0) })
        restoredEvents = start.savedEvents.compactMap { event in
            guard event.id > 0, let topic = byName[event.topic] else { return nil }
            return EventRecord(
                id: UInt64(event.id), topic: topic, frame: Array(event.frame.utf8),
                diffFrame: event.diffFrame.map { Array($0.utf8) })
        }
        sync = Mutex(start.sync)
        if writesBack {
            let service = WeakBox<DataFileService>()
            store.onCommit.withLock { $0.call = { seq in service.value?.committed(seq) } }
            service.value = self
        }
        if start.writeBackNow { scheduleWriteBack() }
    }

    /// Once the hub listens to the view models: replays through them the newest entries the start took the
    /// state back before (`DocumentRewind`: by the file's order on SQLite, the places on PostgreSQL), as their
    /// commits did, so their events are made again with their ids; then follows the other servers' commits
    /// (PostgreSQL), or has the file written and starts watching its folder for a person's edits (inotify, on
    /// `loop`: an editor's save by rename, a write in place, a `git checkout`; each is looked at on the writer
    /// queue).
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
        journal.follow { [store] in store.catchUp() }
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

    /// Stops the watch, writes back what the file does not show yet and closes the journal (shutdown). The
    /// next start makes the recent events again from the journal (`DocumentRewind`).
    func stop() {
        watch.withLock { watch in
            watch?.cancel()
            watch = nil
        }
        writer.sync { writeBack() }
        journal.stopServing()
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
