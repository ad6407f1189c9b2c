import Domain
import HTTP
import LibEvent
import Reactive
import Storage
import StrictJSON
import Support
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
    /// The storage (`--data`: an SQLite file or `:memory:`, or PostgreSQL): every input is committed in it
    /// with its journal entry, and every entry applied from it.
    let journal: any Journal
    /// The inputs other than todo writes, committed through `journal`.
    let shared: SharedInputs
    /// The seed view models every route and event stream shares.
    let models: LiveStateModels
    /// Their lists, encoded once per change for `GET` and `/events` alike.
    let lists: ListSnapshots
    /// The `/events` hub: one subscription per subject, its emissions fanned out to every stream.
    let events: EventHub
    /// The live queries of the seed collections (a list `GET` with `Accept: text/event-stream`).
    let live: LiveCollections
    /// Downloads for the view models (upstream posts and photos, selected images), on the main loop.
    let httpClient: HTTPClient
    /// The files of `--public`; nil when there is no such folder (then no page is served).
    let staticFiles: StaticFiles?
    /// Threads for CPU-heavy work (placeholder images), so no event loop waits on it.
    let workers = WorkerPool()
    /// The user's data file (`livestate FILE.json`), served instead of the seeds; nil without one.
    let dataFile: DataFileService?
    /// json-server's custom routes (`--routes FILE`), which rewrite a request's URL before it is routed; the
    /// file is watched, and a save applies to the requests after it.
    let routes: RoutesWatch?
    /// The live queries of the data file's collections, by name (empty without a data file).
    var documentLive: [String: DocumentLiveFeed] { liveFeeds.withLock { $0 } }
    private let liveFeeds: Mutex<[String: DocumentLiveFeed]>
    /// The topics `/events` serves: the seeds', or the data file's resources now.
    var eventTopics: [EventTopic] { dataFile?.currentTopics ?? EventTopic.allCases }
    /// The built-in page's stream of the data file's set of resources (nil without a data file).
    let resourceList: ResourceListStream?
    /// Rebuilds the routes (set by the server once it routes): the data file's resources changed.
    let rebuildRoutes = Mutex<(@Sendable () -> Void)?>(nil)
    /// Calls back once the journal entry `seq` is applied here (true), or after `timeout` seconds (false): a
    /// `Last-Event-ID` ahead of this instance waits for it. The data file's store numbers the events with a
    /// data file, the seeds' journal otherwise.
    let whenApplied: @Sendable (_ seq: Int64, _ timeout: Double, _ done: @escaping @Sendable (Bool) -> Void) -> Void

    /// Creates the loops (not yet running) and the parts built on them.
    init(configuration: Configuration) throws {
        self.configuration = configuration
        // First: an unusable --ca-file or routes file fails the start before any file or thread exists.
        let tls = try TLSClientContext(trust: configuration.caFile.map { .file($0) } ?? .system)
        routes = try configuration.routesFile.map { path throws(DataFileError) in try RoutesWatch(path: path) }
        // With a data file, `--public` serves the user's files instead of the built-in page (only when given).
        let servesFolder = configuration.dataFile == nil || configuration.publicGiven
        staticFiles = servesFolder ? configuration.publicPath.flatMap { StaticFiles(folder: $0) } : nil
        loops = try (0..<max(1, configuration.threads)).map { index throws(LibEventError) in
            try EventLoop(name: "livestate-http-\(index)")
        }
        // One storage protocol for both engines: every input is committed with its journal entry, and every
        // entry is applied to the view models from the journal (docs/architecture-instances.md).
        // With a data file, `--data` is its journal; the seeds (not served) keep nothing.
        let seedDataPath = configuration.dataFile == nil ? configuration.dataPath : ":memory:"
        let journal: any Journal
        if PostgresURI.matches(seedDataPath) {
            let loop = try EventLoop(name: "livestate-postgres")
            loop.run()
            journal = PostgresJournal(
                uri: seedDataPath, loop: loop, retention: Int64(configuration.journalRetention))
        } else {
            journal = try SQLiteJournal(
                path: seedDataPath, retention: configuration.journalRetention,
                maxTodos: configuration.maxTodos, writer: BackgroundThread(name: "livestate-write", priority: .normal))
        }
        self.journal = journal
        let start = journal.start()
        // Each entry's events take its id; the events that are not journaled the ids after `start.lastSeq`.
        let dataFile = try configuration.dataFile.map { path in
            PostgresURI.matches(configuration.dataPath)
                ? try DataFileService(path: path, database: configuration.dataPath, configuration: configuration)
                : try DataFileService(path: path, dataPath: configuration.dataPath, configuration: configuration)
        }
        self.dataFile = dataFile
        resourceList = dataFile.map { dataFile in
            ResourceListStream { [store = dataFile.store] in
                store.resources.map { (name: $0.name, collection: $0.kind == .collection) }
            }
        }
        let whenApplied: @Sendable (Int64, Double, @escaping @Sendable (Bool) -> Void) -> Void =
            if let store = dataFile?.store {
                { seq, timeout, done in store.whenApplied(seq, timeout: timeout, done) }
            } else {
                { seq, timeout, done in journal.whenApplied(seq, timeout: timeout, done) }
            }
        self.whenApplied = whenApplied
        // The load's transient memory (the file's bytes, jansson's tree) goes back to the kernel at once.
        if dataFile != nil { Allocator.trim() }
        let ids =
            dataFile?.ids ?? EventIDSource(journalFloor: UInt64(start.lastSeq) * EventIDSource.journalBlock)
        httpClient = HTTPClient(loop: loops[0], tls: tls)
        // The album view model's pipeline loads a selection by waiting for its image entry in the journal.
        let images = JournaledImages()
        // The task list shows the journal's todos and hands `addNewTask`'s inserts to it; the routes' writes
        // name their own commit (with the client's key and the answer).
        models = LiveStateModels(
            todos: start.todos,
            commitTodo: { write in
                journal.write(write, key: nil) { result in
                    if case .failure(let error) = result { Log.warning("a task sent to addNewTask not kept: \(error)") }
                }
            }, upstream: configuration.upstream, loader: httpClient, imageLoader: images, scheduler: loops[0],
            maxTodos: configuration.maxTodos, shared: true)
        let shared = SharedInputs(
            journal: journal, models: models, images: images, loader: httpClient, workers: workers)
        self.shared = shared
        lists = ListSnapshots(models)
        events = EventHub(ids: ids, heartbeat: configuration.heartbeat)
        // The selection, its image and the keyword's result the journal holds, before the events are attached:
        // a restarted server shows what it showed, and a new instance what the others show.
        shared.restore(upTo: start.lastSeq)
        // The events of the runs before this one (SQLite: the journal is in the file), so a `Last-Event-ID`
        // resume survives a restart.
        let (count, bytes) = events.bufferBounds
        // A live query's `Last-Event-ID` from an instance that is ahead waits as an `/events` resume does.
        let engine = LiveQueryEngine(
            limits: configuration.liveQueries, heartbeat: configuration.heartbeat
        ) { [events] seen, action in
            guard seen > events.lastEventID else { return action() }
            whenApplied(Int64(seen / EventIDSource.journalBlock), 5) { _ in action() }
        }
        live = LiveCollections(engine: engine)
        var feeds: [String: DocumentLiveFeed] = [:]
        // The last run's events, when it stopped cleanly and nothing changed since, before this run's first.
        if let dataFile {
            events.restore(dataFile.restoredEvents)
            if let floor = dataFile.resumeFloor { events.holdsEverything(after: floor) }
        }
        for (resource, topic) in zip(dataFile?.store.resources ?? [], dataFile?.topics ?? []) {
            let feed = resource.kind == .collection ? DocumentLiveFeed(resource, engine: engine) : nil
            feeds[resource.name] = feed
            events.attach(topic, documents: resource, live: feed)
        }
        liveFeeds = Mutex(feeds)
        onShutdown { engine.shutdown() }
        if let dataFile {
            // A person's save that adds or removes resources: their topics, live queries and routes follow.
            dataFile.onResources.withLock {
                $0 = { [weak self] change in self?.changed(change, engine: engine) }
            }
            // NB: after the topics are attached: the entries it replays make their events.
            try dataFile.start(on: loops[0])
            onShutdown { [events] in dataFile.stop(saving: events.recorded) }
        }
        if dataFile == nil {
            events.seed(
                JournalReplay.records(
                    journal.recent(limit: count, bytes: bytes), current: models.todos.currentTasks, count: count,
                    bytes: bytes
                ) { [httpClient] scratch, scratchImages in
                    SharedInputs(
                        journal: journal, models: scratch, images: scratchImages, loader: httpClient)
                })
            events.attach(models, lists: lists, live: live)
        }
        if let routes {
            routes.start(on: loops[0])
            onShutdown { routes.stop() }
        }
        onShutdown { [events] in events.shutdown() }
        onShutdown { [workers] in workers.stop() }
        let memoryReturn = MemoryReturn.start(on: loops[0]) { [events] in events.clientCount + engine.openCount }
        onShutdown { memoryReturn.cancel() }
        // A selection that cannot be shown is degraded service an operator should see, not only the page.
        let selectionLog = models.albums.selectionStatus.sink { status in
            if case .failed(let url, let reason) = status {
                Log.warning("album selection \(url.prefix(200)) not shown: \(reason)")
            }
        }
        onShutdown { selectionLog.cancel() }
        // Entries are applied in order; each change's event takes the journal's id.
        journal.follow(after: start.lastSeq) { [models] entries in
            for entry in entries {
                guard entry.change.collection == JournalChange.todos else {
                    shared.apply(seq: entry.seq, topic: entry.change.collection, json: entry.change.document ?? "")
                    continue
                }
                guard let change = entry.change.todoChange else {
                    Log.error("journal: entry \(entry.seq) of todos does not hold a todo; skipped")
                    continue
                }
                // NB: the list it makes carries the entry's id to its event (`TaskListVersion.seq`).
                models.todos.committed.send(Committed(seq: entry.seq, change: change))
            }
        }
        // The upstream lists: the journal's, or fetched once and journaled (not one fetch per instance).
        shared.loadAtStart()
        onShutdown {
            shared.cancel()
            journal.stop()
        }
    }

    /// Follows a change of the data file's resources: the removed ones' `/events` clients and live queries get
    /// a last `removed` event and their streams end; the added ones get their topic and live queries; then
    /// the routes are rebuilt for the new set.
    private func changed(_ change: DataFileService.ResourceChange, engine: LiveQueryEngine) {
        let path = dataFile?.path ?? ""
        for (name, topic) in change.removed {
            let frame = SharedBytes(Self.removedFrame(name, path: path))
            if let topic { events.end(topic, with: frame) }
            let feed = liveFeeds.withLock { $0.removeValue(forKey: name) }
            feed?.end(with: frame)
        }
        for (resource, topic) in change.added {
            let feed = resource.kind == .collection ? DocumentLiveFeed(resource, engine: engine) : nil
            liveFeeds.withLock { $0[resource.name] = feed }
            events.attach(topic, documents: resource, live: feed)
        }
        rebuildRoutes.withLock { $0 }?()
        resourceList?.changed()
    }

    /// The last event of a stream whose resource `name` is gone from the data file at `path`.
    static func removedFrame(_ name: String, path: String) -> [UInt8] {
        var data: [UInt8] = Array(#"{"resource":"#.utf8)
        JSONValue.writeString(name, into: &data)
        data.append(contentsOf: #","message":"#.utf8)
        JSONValue.writeString("\(name) is no longer in \(path); its stream ends", into: &data)
        data.append(UInt8(ascii: "}"))
        return Array("event: removed\ndata: ".utf8) + data + Array("\n\n".utf8)
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
