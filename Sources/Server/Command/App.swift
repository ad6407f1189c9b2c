import Domain
import HTTP
import LibEvent
import Reactive
import Storage
import Synchronization

/// The service's long-lived parts, built once from a `Configuration` and shared by every route.
///
/// Every stored part is built in `init` from `configuration` and the loops, and is `Sendable`: routes run
/// concurrently on every loop's thread.
final class App: Sendable {
    /// The configuration the service started with.
    let configuration: Configuration
    /// The HTTP event loops (`--threads`); `loops[0]` also runs the service's timers.
    let loops: [EventLoop]
    /// The todo store (`--data`: an SQLite file, or `:memory:`; with PostgreSQL, this instance's replica).
    let store: any TodoStore
    /// With `--data postgres://…`: the shared todos and their journal (`Journal`); todo writes go through it.
    let journal: (any Journal)?
    /// With `--data postgres://…`: the other inputs of the view models, shared through `journal`.
    let shared: SharedInputs?
    /// The seed view models every route and event stream shares.
    let models: LiveStateModels
    /// Their lists, encoded once per change for `GET` and `/events` alike.
    let lists: ListSnapshots
    /// The `/events` hub: one subscription per subject, its emissions fanned out to every stream.
    let events: EventHub
    /// Downloads for the view models (upstream posts and photos, selected images), on the main loop.
    let httpClient: HTTPClient
    /// The files of `--public`; nil when there is no such folder (then no page is served).
    let staticFiles: StaticFiles?
    /// Threads for CPU-heavy work (placeholder images), so no event loop waits on it.
    let workers = WorkerPool()

    /// Creates the loops (not yet running) and the parts built on them.
    init(configuration: Configuration) throws {
        self.configuration = configuration
        // First: an unusable --ca-file fails the start before any file or thread exists.
        let tls = try TLSClientContext(trust: configuration.caFile.map { .file($0) } ?? .system)
        staticFiles = configuration.publicPath.flatMap { StaticFiles(folder: $0) }
        loops = try (0..<max(1, configuration.threads)).map { index throws(LibEventError) in
            try EventLoop(name: "livestate-http-\(index)")
        }
        let ids: EventIDSource
        let start: JournalSnapshot?
        var sqlite: SQLiteTodoStore?
        if PostgresURI.matches(configuration.dataPath) {
            let loop = try EventLoop(name: "livestate-postgres")
            loop.run()
            let journal: any Journal = PostgresJournal(
                uri: configuration.dataPath, loop: loop, retention: Int64(configuration.journalRetention))
            let snapshot = journal.start()
            self.journal = journal
            start = snapshot
            store = InMemoryTodoStore(todos: snapshot.todos)
            ids = EventIDSource(journalFloor: UInt64(snapshot.lastSeq) * EventIDSource.journalBlock)
        } else {
            journal = nil
            start = nil
            // The journal is in the file: each write's event takes its entry's id, and this run's other
            // events the ids after the block the store took at start (docs/architecture-instances.md).
            let file = try SQLiteTodoStore(path: configuration.dataPath, retention: configuration.journalRetention)
            let fileIDs = EventIDSource(journalFloor: UInt64(file.startSeq) * EventIDSource.journalBlock)
            file.onCommit { seq in fileIDs.pin(UInt64(seq) * EventIDSource.journalBlock, for: .todos) }
            store = file
            ids = fileIDs
            sqlite = file
        }
        httpClient = HTTPClient(loop: loops[0], tls: tls)
        models = try LiveStateModels(
            store: store, upstream: configuration.upstream, loader: httpClient, scheduler: loops[0],
            maxTodos: configuration.maxTodos, shared: journal != nil)
        shared = journal.map { [models, httpClient] journal in
            SharedInputs(
                journal: journal, models: models, ids: ids, loader: httpClient, upstream: configuration.upstream)
        }
        lists = ListSnapshots(models)
        events = EventHub(ids: ids, heartbeat: configuration.heartbeat)
        if let sqlite {
            // The events of the runs before this one, so a `Last-Event-ID` resume survives the restart.
            let (count, bytes) = events.bufferBounds
            let entries = try sqlite.recentEntries(limit: count)
            events.seed(
                JournalReplay.records(entries, current: models.todos.currentTasks, count: count, bytes: bytes))
        }
        events.attach(models, lists: lists)
        onShutdown { [events] in events.shutdown() }
        onShutdown { [workers] in workers.stop() }
        let memoryReturn = MemoryReturn.start(on: loops[0]) { [events] in events.clientCount }
        onShutdown { memoryReturn.cancel() }
        // A selection that cannot be shown is degraded service an operator should see, not only the page.
        let selectionLog = models.albums.selectionStatus.sink { status in
            if case .failed(let url, let reason) = status {
                Log.warning("album selection \(url.prefix(200)) not shown: \(reason)")
            }
        }
        onShutdown { selectionLog.cancel() }
        if let journal, let start, let shared {
            // Every instance applies the journal in order; each change's event takes the journal's id.
            journal.follow(after: start.lastSeq) { [models] entries in
                for entry in entries {
                    switch entry.change {
                    case .todo(let change):
                        ids.pinned(UInt64(entry.seq) * EventIDSource.journalBlock, for: .todos) {
                            models.todos.apply(change)
                        }
                    case .input(let topic, let json):
                        shared.apply(seq: entry.seq, topic: topic, json: json)
                    }
                }
            }
            // The upstream lists: the journal's, or fetched once and journaled (not one fetch per instance).
            shared.loadAtStart()
            onShutdown {
                shared.cancel()
                journal.stop()
            }
        }
    }

    /// Work to run once at shutdown, after the listeners stopped accepting and streams ended.
    private let shutdownActions = Mutex<[@Sendable () -> Void]>([])

    /// The loop for timers and work that is not tied to a connection.
    var mainLoop: EventLoop { loops[0] }

    /// Registers `action` for shutdown (finish storage writes, cancel subscriptions); runs on the stopping
    /// thread, in the order registered, before the loops stop.
    func onShutdown(_ action: @escaping @Sendable () -> Void) {
        shutdownActions.withLock { $0.append(action) }
    }

    /// Runs the shutdown actions once.
    func runShutdownActions() {
        let actions = shutdownActions.withLock { actions in
            defer { actions = [] }
            return actions
        }
        for action in actions { action() }
    }
}
