import Foundation
import HTTP
import Support
import Synchronization

/// Live queries: any collection `GET` with `Accept: text/event-stream` streams its query's result as it
/// changes (docs/api.md, "Live queries"). The engine holds the limits and the count of open live queries,
/// and registers collections; each collection (`LiveCollection`) follows its own versions and clients.
///
/// Registering a collection is one call, for any query type that conforms to `LiveQuery`:
///
/// ```swift
/// let engine = LiveQueryEngine(limits: .init(), heartbeat: 15)
/// let todos = engine.register("todos", query: ListLiveQuery<Todo>.self, key: { String($0.id) })
/// todos.publish(id: 65536, items: list)                    // each list, with its event id, in id order
/// get("/todos") { request in try todos.reply(request, query: ...) }   // Accept: text/event-stream
/// ```
final class LiveQueryEngine: Sendable {
    /// The bounds that keep live queries' memory bounded (docs/configuration.md).
    struct Limits: Sendable, Equatable {
        /// The most live queries open on the server at once (`--max-live-queries`); more get a 503.
        var maxQueries = 16_384
        /// The most versions of one collection kept for `Last-Event-ID` resume.
        var historyVersions = 256
        /// The most items those versions may hold together (the newest version is always kept): about
        /// 13 MiB of todos, 40 MiB of photos at the most.
        var historyItems = 131_072
        /// The items a live query whose window ends (`_limit`, `_end`) holds past that end, per distinct
        /// query per event loop (`--live-query-margin`); it holds no other item but counts them. nil: every
        /// item that passes its filters.
        var windowMargin: Int? = 256
        /// How long a sort's kept order still follows the writes after its last live query went (`LiveOrders`).
        var orderIdle: Duration = .seconds(5)
    }

    let limits: Limits
    /// Seconds between `: keep-alive` comments; nil sends none.
    let heartbeat: Double?
    /// The cap on unsent live output per client (as `/events`).
    let clientCap: Int
    /// The replay output each client keeps in flight.
    let clientWindow: Int

    /// Calls its action once this instance has applied the event `id` (or gave up waiting): a
    /// `Last-Event-ID` from another instance that is ahead. Runs the action at once by default.
    typealias CatchUp = @Sendable (_ id: UInt64, _ action: @escaping @Sendable () -> Void) -> Void

    private let catchUp: CatchUp
    private let open = Atomic<Int>(0)
    private let collections = Mutex<[@Sendable () -> Void]>([])

    init(
        limits: Limits = Limits(), heartbeat: Double? = 15, clientCap: Int = EventClient.defaultCap,
        clientWindow: Int = EventClient.defaultWindow, catchUp: @escaping CatchUp = { _, action in action() }
    ) {
        self.limits = limits
        self.heartbeat = heartbeat
        self.clientCap = clientCap
        self.clientWindow = clientWindow
        self.catchUp = catchUp
    }

    /// Registers a collection whose queries are `Query`s; `key` gives an item's id as JSON text, `encode` an
    /// item's JSON as the plain `GET` encodes it; `source`, the items now and the id of the newest event they
    /// show, for a collection followed only while a live query of it is open (`LiveCollection`); `narrow`, a
    /// query's candidates from an index of the source, and `ordered`, the items in a query's order from a kept
    /// order of the source (`LiveCollection.snapshot(for:)`). Then
    /// publish its writes and answer its live `GET`s through the returned `LiveCollection`.
    func register<Query: LiveQuery>(
        _ name: String, query _: Query.Type, key: @escaping @Sendable (Query.Item) -> String,
        encode: @escaping @Sendable (Query.Item) -> [UInt8],
        source: (@Sendable () -> (items: [Query.Item], id: UInt64))? = nil,
        narrow: LiveCollection<Query>.Narrow? = nil, ordered: LiveCollection<Query>.Narrow? = nil
    ) -> LiveCollection<Query> {
        let collection = LiveCollection<Query>(
            name: name, engine: self, key: key, encode: encode, source: source, narrow: narrow, ordered: ordered)
        collections.withLock { $0.append { collection.shutdown() } }
        return collection
    }

    /// `register` for items encoded as every JSON answer is (`JSONCoding.encode`).
    func register<Query: LiveQuery>(
        _ name: String, query: Query.Type, key: @escaping @Sendable (Query.Item) -> String
    ) -> LiveCollection<Query> where Query.Item: Encodable {
        register(name, query: query, key: key) { item in (try? JSONCoding.encode(item)) ?? Array("null".utf8) }
    }

    // MARK: Counting

    /// Live queries open now, over every collection.
    var openCount: Int { open.load(ordering: .relaxed) }

    /// Throws the 503 when the server holds its most live queries.
    func checkRoom() throws(HTTPError) {
        guard openCount < limits.maxQueries else {
            throw HTTPError(
                503, "too_many_live_queries",
                "the server holds its most live queries (\(limits.maxQueries)); try again later",
                headers: ["Retry-After": "5"])
        }
    }

    func opened() { open.add(1, ordering: .relaxed) }
    func closed() { open.subtract(1, ordering: .relaxed) }

    /// Runs `action` once this instance has caught up with event `id`.
    func whenCaughtUp(with id: UInt64, _ action: @escaping @Sendable () -> Void) {
        catchUp(id, action)
    }

    /// Ends every live query.
    func shutdown() {
        let all = collections.withLock { $0 }
        for shutdown in all { shutdown() }
    }

    /// The `Last-Event-ID` of a reconnecting `EventSource`; a malformed one counts as absent.
    static func lastEventID(of request: Request) -> UInt64? {
        request.headers["Last-Event-ID"].flatMap { UInt64($0.filter { $0 != " " }) }
    }

    /// The headers of a live query's stream: those of `/events`.
    static let streamHeaders: HTTPHeaders = [
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no",
    ]

    /// Whether `request` asks for a stream (`Accept: text/event-stream`).
    static func wantsStream(_ request: Request) -> Bool {
        request.headers.combined("Accept")?.lowercased().contains("text/event-stream") ?? false
    }
}
