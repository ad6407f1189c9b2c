import Domain
import HTTP
import LibEvent
import Storage
import StrictJSON
import Synchronization

/// A user's data file served (`livestate FILE.json`): its resources, their store and journal (`--data`), and
/// the file kept in step both ways (`DataFileService`); the seed apps are not built.
final class DataFileSite: Site {
    /// The file, its store and its journal.
    let dataFile: DataFileService
    let events: EventHub
    let engine: LiveQueryEngine
    /// The built-in page's stream of the set of resources.
    let resourceList: ResourceListStream
    /// The live queries of the collections, by name.
    var documentLive: [String: DocumentLiveFeed] { liveFeeds.withLock { $0 } }
    private let liveFeeds: Mutex<[String: DocumentLiveFeed]>
    /// Rebuilds the routes (set by the server once it routes): the resources changed.
    private let rebuildRoutes = Mutex<(@Sendable () -> Void)?>(nil)

    var topics: [EventTopic] { dataFile.currentTopics }

    /// Loads the file, reconciles it with its journal, attaches its resources to their hub and starts
    /// following the file's edits (and, on PostgreSQL, the other servers' commits) on `loop`.
    init(path: String, configuration: Configuration, loop: EventLoop) throws {
        let journal = try DataFileService.journal(for: path, configuration: configuration)
        let dataFile = try DataFileService(path: path, journal: journal, configuration: configuration)
        self.dataFile = dataFile
        resourceList = ResourceListStream { [store = dataFile.store] in
            store.resources.map { (name: $0.name, collection: $0.kind == .collection) }
        }
        // The load's transient memory (the file's bytes, jansson's tree) goes back to the kernel at once.
        Allocator.trim()
        events = EventHub(ids: dataFile.ids, heartbeat: configuration.heartbeat)
        engine = LiveQueryEngine(following: events, configuration: configuration) { [store = dataFile.store] in
            store.whenApplied($0, timeout: $1, $2)
        }
        // The last run's events, when it stopped cleanly and nothing changed since, before this run's first.
        events.restore(dataFile.restoredEvents)
        if let floor = dataFile.resumeFloor { events.holdsEverything(after: floor) }
        var feeds: [String: DocumentLiveFeed] = [:]
        for (resource, topic) in zip(dataFile.store.resources, dataFile.topics) {
            let feed = resource.kind == .collection ? DocumentLiveFeed(resource, engine: engine) : nil
            feeds[resource.name] = feed
            events.attach(topic, documents: resource, live: feed)
        }
        liveFeeds = Mutex(feeds)
        // A person's save that adds or removes resources: their topics, live queries and routes follow.
        dataFile.onResources.withLock { $0 = { [weak self] change in self?.changed(change) } }
        // NB: after the topics are attached: the entries it replays make their events.
        try dataFile.start(on: loop)
    }

    func whenApplied(_ seq: Int64, timeout: Double, _ done: @escaping @Sendable (Bool) -> Void) {
        dataFile.store.whenApplied(seq, timeout: timeout, done)
    }

    /// The document made from the file's resources at start (`DataFileOpenAPI`).
    func openAPIDocument(_ configuration: Configuration) -> [UInt8] {
        DataFileOpenAPI.document(
            for: dataFile.store, values: dataFile.values.served, readOnly: configuration.readOnly,
            tokenRequired: configuration.token != nil
        ).compactBytes
    }

    /// The file's resources, their names matched in any case, and its resets.
    func addRoutes(to router: inout Router, app: App) {
        router.ignoresCase = true
        router.addDocumentRoutes(
            dataFile, live: documentLive, workers: app.workers, readOnly: app.configuration.readOnly,
            page: app.staticFiles == nil)
        router.addResetRoutes(dataFile.resets, readOnly: app.configuration.readOnly)
        if app.staticFiles == nil {
            // The built-in page's stream of the set of resources (a save may add or remove some).
            router.get("/_livestate/resources") { [resourceList] _ in resourceList.reply() }
        }
    }

    func onResourcesChanged(_ rebuild: @escaping @Sendable () -> Void) {
        rebuildRoutes.withLock { $0 = rebuild }
    }

    /// Stops the watch and writes back what the file does not show yet.
    func stop() {
        dataFile.stop()
    }

    func shutdown() {}

    /// Follows a change of the file's resources: the removed ones' `/events` clients and live queries get a
    /// last `removed` event and their streams end; the added ones get their topic and live queries; then the
    /// routes are rebuilt for the new set.
    private func changed(_ change: DataFileService.ResourceChange) {
        for (name, topic) in change.removed {
            let frame = SharedBytes(Self.removedFrame(name, path: dataFile.path))
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
        resourceList.changed()
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
}
