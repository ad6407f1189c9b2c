import HTTP
import Reactive
import Synchronization

/// One collection's live queries: the versions its writes made (a bounded history, for `Last-Event-ID`),
/// one `LiveQueryFanout` per event loop, and the `GET` reply that opens a live query.
///
/// A collection is registered once with `LiveQueryEngine.register`; whatever publishes its events then
/// calls `publish(id:items:)` with each new list and the event id it took, in id order (the seed lists do
/// so from `EventHub`, under the hub's lock, so a live query's ids are the `/events` ids, on every
/// instance).
///
/// ```swift
/// let todos = engine.register("todos", query: ListLiveQuery<Todo>.self, key: { String($0.id) })
/// todos.publish(id: 65536, items: currentTodos)
/// // in the GET route, for `Accept: text/event-stream`:
/// return try todos.reply(request, query: ListLiveQuery(try ListQuery(request.query, for: Todo.self)))
/// ```
final class LiveCollection<Query: LiveQuery>: Sendable {
    typealias Item = Query.Item

    /// The collection's name (its path, `todos`).
    let name: String
    /// The engine it belongs to: limits and counts.
    let engine: LiveQueryEngine
    /// An item's key: its id's JSON text (`1`, `"a1"`), as `deleted` lists it.
    let key: @Sendable (Item) -> String
    /// An item's compact JSON, as the plain `GET` encodes it.
    let encodeItem: @Sendable (Item) -> [UInt8]

    private struct State {
        /// The newest versions, oldest first (the newest always kept).
        var versions: [LiveVersion<Item>] = []
        /// Per version, the items it added to the history's memory (0 when it shares its list with the
        /// version before).
        var counted: [Int] = []
        /// The items the versions hold together: what the history's item bound counts.
        var heldItems = 0
        /// Per event loop (or test scheduler), its fan-out.
        var fanouts: [ObjectIdentifier: LiveQueryFanout<Query>] = [:]
        var isShutDown = false
    }

    private let state = Mutex(State())
    // NB: sent while holding `state`'s lock, so every loop sees the versions in id order.
    private let feed = PassthroughSubject<LiveVersion<Item>, Never>()

    init(
        name: String, engine: LiveQueryEngine, key: @escaping @Sendable (Item) -> String,
        encode: @escaping @Sendable (Item) -> [UInt8]
    ) {
        self.name = name
        self.engine = engine
        self.key = key
        encodeItem = encode
    }

    // MARK: Versions

    /// Records the collection as the event `id` left it (`items`, in the collection's order) and hands the
    /// version to every loop. Ids must grow; an id at or below the newest is ignored.
    ///
    /// Cost: one comparison of the new list with the previous one by position from both ends (the changed
    /// middle is what the loops look up in their indexes), under the lock; nothing per query.
    func publish(id: UInt64, items: [Item]) {
        state.withLock { state in
            guard !state.isShutDown, id > (state.versions.last?.id ?? 0) else { return }
            let previous = state.versions.last
            let changes = LiveVersion.changes(from: previous?.items ?? [], to: items, key: key)
            // NB: an unchanged list (a refresh that brought the same items) keeps the previous version's
            // storage, so the history holds it once.
            let shared = changes.isEmpty && previous != nil
            let version = LiveVersion(id: id, items: shared ? previous?.items ?? items : items, changes: changes)
            state.versions.append(version)
            state.counted.append(shared ? 0 : items.count)
            state.heldItems += shared ? 0 : items.count
            let limits = engine.limits
            var dropped = 0
            while state.versions.count - dropped > 1,
                state.versions.count - dropped > limits.historyVersions || state.heldItems > limits.historyItems
            {
                state.heldItems -= state.counted[dropped]
                dropped += 1
            }
            if dropped > 0 {
                state.versions.removeFirst(dropped)
                state.counted.removeFirst(dropped)
            }
            feed.send(version)
        }
    }

    /// The version a client that saw event `id` holds: the newest version at or before `id`; nil when the
    /// history no longer reaches back to it (or has nothing yet).
    func version(atOrBefore id: UInt64) -> LiveVersion<Item>? {
        state.withLock { state in
            guard let oldest = state.versions.first, oldest.id <= id else { return nil }
            return state.versions.last { $0.id <= id }
        }
    }

    /// The id of the newest version; 0 before the first.
    var newestID: UInt64 { state.withLock { $0.versions.last?.id ?? 0 } }

    /// How many versions the history holds.
    var historyCount: Int { state.withLock { $0.versions.count } }

    // MARK: Clients

    /// The fan-out of `loop`, made on first use.
    func fanout(for loop: any RequestLoop) -> LiveQueryFanout<Query> {
        fanout(key: ObjectIdentifier(loop), scheduler: loop)
    }

    /// The fan-out registered under `key`, made on first use on `scheduler` (tests pass their own), starting
    /// from the newest version.
    func fanout<S: Scheduler>(key: ObjectIdentifier, scheduler: S) -> LiveQueryFanout<Query> {
        state.withLock { state in
            if let existing = state.fanouts[key] { return existing }
            // NB: made and subscribed under the lock `publish` sends under: no version falls between the
            // current one and the first the fan-out receives.
            let current = state.versions.last ?? LiveVersion(id: 0, items: [], changes: [])
            let fanout = LiveQueryFanout(
                collection: self, current: current, feed: feed, scheduler: scheduler, heartbeat: engine.heartbeat)
            state.fanouts[key] = fanout
            return fanout
        }
    }

    /// The answer to a `GET` with `Accept: text/event-stream`: the stream of `query`'s result (its text
    /// `key`, by default the request's query string). Refused with a 503 when the server holds its most live
    /// queries. A `Last-Event-ID` newer than this instance's events (another instance is ahead) waits until
    /// this instance caught up with it, as `/events` does.
    func reply(_ request: Request, query: Query, key: String? = nil) throws(HTTPError) -> Reply {
        try engine.checkRoom()
        let key = key ?? request.query.pairs.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let lastEventID = LiveQueryEngine.lastEventID(of: request)
        let engine = engine
        return .stream(status: 200, headers: LiveQueryEngine.streamHeaders) { [self] stream in
            engine.opened()
            stream.onClose { engine.closed() }
            let connect: @Sendable () -> Void = { [self] in
                fanout(for: stream.loop).add(stream, query: query, key: key, lastEventID: lastEventID)
            }
            guard let seen = lastEventID else { return connect() }
            engine.whenCaughtUp(with: seen) {
                stream.loop.execute {
                    guard !stream.isClosed else { return }
                    connect()
                }
            }
        }
    }

    /// Ends every live query of the collection with `frame` last (its resource was removed from the data
    /// file), each fan-out on its loop, and takes no more versions.
    func end(with frame: SharedBytes) {
        let fanouts = state.withLock { state in
            state.isShutDown = true
            return Array(state.fanouts.values)
        }
        for fanout in fanouts { fanout.end(with: frame) }
    }

    /// Ends every live query of the collection (each fan-out on its loop) and takes no more versions.
    func shutdown() {
        let wasShutDown = state.withLock { state in
            defer { state.isShutDown = true }
            return state.isShutDown
        }
        guard !wasShutDown else { return }
        feed.send(completion: .finished)
    }
}
