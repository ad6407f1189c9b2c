import Domain
import HTTP
import LibEvent
import Reactive
import Storage
import Support

/// The five seed apps served (`livestate` without a data file): their view models on the journal of
/// `--data` (an SQLite file, `:memory:` or PostgreSQL), where every input is committed with its entry and
/// from which every entry is applied to the view models (docs/architecture-instances.md).
final class SeedSite: Site {
    /// The storage: every input is committed in it with its journal entry, and every entry applied from it.
    let journal: SeedStore
    /// The inputs other than todo writes, committed through `journal`, each entry sent into its view model.
    let inputs: SeedInputs
    /// The seed view models every route and event stream shares.
    let models: LiveStateModels
    /// Their lists, encoded once per change for `GET` and `/events` alike.
    let lists: ListSnapshots
    /// The live queries of the seed collections.
    let live: LiveCollections
    let events: EventHub
    let engine: LiveQueryEngine
    /// Threads for CPU-heavy work (placeholder images, a downloaded image's encoding).
    let workers: WorkerPool
    /// Logs a selection that cannot be shown.
    private let selectionLog: AnyCancellable

    var topics: [EventTopic] { EventTopic.allCases }

    /// Opens the journal and builds the view models on what it holds, their hub with the events of the runs
    /// before this one, and follows the journal; timers and downloads run on `loop`, through `client`.
    init(configuration: Configuration, loop: EventLoop, client: HTTPClient, workers: WorkerPool) throws {
        self.workers = workers
        let journal: SeedStore
        if PostgresURI.matches(configuration.dataPath) {
            journal = try SeedStore(
                postgres: configuration.dataPath, retention: configuration.journalRetention,
                maxTodos: configuration.maxTodos)
        } else {
            journal = try SeedStore(
                path: configuration.dataPath, retention: configuration.journalRetention,
                maxTodos: configuration.maxTodos)
        }
        self.journal = journal
        let start = journal.start()
        // The state before the newest entries, which go through the view models again once the hub listens,
        // so a `Last-Event-ID` from before a restart resumes with the events they made (`SeedRewind`).
        let (count, bytes) = (EventLog.defaultCount, EventLog.defaultBytes)
        let rewind = SeedRewind(
            journal.recent(limit: count, bytes: bytes), todos: start.todos, count: count, bytes: bytes)
        let floor = (rewind.entries.first?.seq).map { $0 - 1 } ?? start.lastSeq
        // The task list shows the journal's todos and hands `addNewTask`'s inserts to it; the routes' writes
        // name their own commit (with the client's key and the answer).
        models = LiveStateModels(
            todos: rewind.todos,
            commitTodo: { write in
                journal.write(write, key: nil) { result in
                    if case .failure(let error) = result { Log.warning("a task sent to addNewTask not kept: \(error)") }
                }
            }, upstream: configuration.upstream, loader: client, scheduler: loop,
            maxTodos: configuration.maxTodos)
        let inputs = SeedInputs(models: models, journal: journal, loader: client, workers: workers)
        self.inputs = inputs
        lists = ListSnapshots(models)
        // Each entry's events take its id; the events that are not journaled the ids after it.
        events = EventHub(
            ids: EventIDSource(journalFloor: UInt64(floor) * EventIDSource.journalBlock),
            heartbeat: configuration.heartbeat)
        // The selection, its image and the keyword's result before those entries: a restarted server shows
        // what it showed, and a new instance what the others show.
        inputs.restore(upTo: floor, from: journal)
        engine = LiveQueryEngine(following: events, configuration: configuration) { seq, timeout, done in
            journal.whenApplied(seq, timeout: timeout, done)
        }
        live = LiveCollections(engine: engine)
        // A selection that cannot be shown is degraded service an operator should see, not only the page.
        selectionLog = models.albums.selectionStatus.sink { status in
            if case .failed(let url, let reason) = status {
                Log.warning("album selection \(url.prefix(200)) not shown: \(reason)")
            }
        }
        journal.deliverTodos { [models] committed in
            // NB: the list it makes carries the entry's id and its change to its event (`Versioned`).
            models.todos.committed.send(committed)
        }
        events.replaying(
            after: UInt64(floor) * EventIDSource.journalBlock,
            last: UInt64(start.lastSeq) * EventIDSource.journalBlock
        ) {
            events.attach(models, lists: lists, live: live)
            journal.replay(rewind.entries)
        }
        if !rewind.entries.isEmpty {
            Log.info(
                "the newest \(rewind.entries.count) change(s), after entry \(floor), went through the view models"
                    + " again: a Last-Event-ID from before this start resumes")
        }
        // Each view model takes its entries on a thread of its own: their events wait for the entries before.
        events.ordersByDelivery(from: start.lastSeq)
        journal.onDelivered { [events] entry in events.delivered(through: entry) }
        // A selection the entries leave pending is downloaded again (its downloader stopped with the server).
        inputs.selection.resumePending()
        // Each resource sends its entries, in order, into its view model; each change's event takes the
        // entry's id. With PostgreSQL, the others' commits from now on.
        journal.follow()
        // The upstream lists: the journal's, or fetched once and journaled (not one fetch per instance).
        inputs.lists.loadAtStart(journal)
    }

    func whenApplied(_ seq: Int64, timeout: Double, _ done: @escaping @Sendable (Bool) -> Void) {
        journal.whenApplied(seq, timeout: timeout, done)
    }

    func openAPIDocument(_ configuration: Configuration) -> [UInt8] { OpenAPIDocument.bytes }

    func addRoutes(to router: inout Router, app: App) {
        router.addTodoRoutes(self)
        router.addPostRoutes(self)
        router.addAlbumRoutes(self)
        router.addFrameworkRoutes(self)
        router.addMovieRoutes(self)
        // The generated placeholder images of the embedded photos.
        router.addPlaceholderRoutes(workers)
    }

    /// The seeds' resources are fixed: their routes never change.
    func onResourcesChanged(_ rebuild: @escaping @Sendable () -> Void) {}

    func stop() {}

    func shutdown() {
        selectionLog.cancel()
        inputs.cancel()
        journal.stop()
    }
}
