import HTTP
import Reactive

/// The live queries of one collection on one event loop: one subscription to the collection's versions,
/// delivered on the loop, the loop's queries grouped by their text (`LiveQueryGroup`) and indexed by their
/// equality filter (`LiveQueryIndex`), and the heartbeat of their clients.
///
/// A version is checked only against the groups the index gives for the items that changed (plus the
/// groups without an equality filter); a group none of whose changed items passes its filters, before or
/// after, is not evaluated. A touched group evaluates its query over the new version once, and the change
/// from its last result goes as one shared frame to each of its clients.
///
/// Used on its loop only, except `init`.
final class LiveQueryFanout<Query: LiveQuery>: @unchecked Sendable {
    // NB: @unchecked because everything but `init` runs on the loop: versions arrive through
    // `receive(on:)`, and clients are added and removed by their streams' callbacks, on the loop.
    typealias Item = Query.Item

    private unowned let collection: LiveCollection<Query>
    /// The newest version this loop applied; results are of this version.
    private(set) var current: LiveVersion<Item>
    private var groups: [String: LiveQueryGroup<Query>] = [:]
    private var index = LiveQueryIndex<LiveQueryGroup<Query>>()
    private var subscription: AnyCancellable?
    private var heartbeatTimer: (any Cancellable)?
    private let yieldToLoop: (@escaping () -> Void) -> Void
    private var isFinished = false
    /// How many groups the last version evaluated (tests and the benchmark read it).
    private(set) var lastEvaluated = 0

    /// Subscribes to `feed` on `scheduler`, starting from `current`, and starts the heartbeat.
    init<S: Scheduler>(
        collection: LiveCollection<Query>, current: LiveVersion<Item>,
        feed: PassthroughSubject<LiveVersion<Item>, Never>,
        scheduler: S, heartbeat: Double?
    ) {
        self.collection = collection
        self.current = current
        yieldToLoop = { work in scheduler.schedule(after: scheduler.now, work) }
        subscription = feed.receive(on: scheduler).sink(
            receiveCompletion: { [weak self] _ in self?.finishAll() },
            receiveValue: { [weak self] version in self?.apply(version) })
        heartbeatTimer = scheduler.heartbeat(every: heartbeat) { [weak self] in self?.beat() }
    }

    deinit {
        heartbeatTimer?.cancel()
    }

    /// How many distinct queries this loop follows.
    var groupCount: Int { groups.count }

    // MARK: Versions

    /// Applies the next version: evaluates the groups it can affect and sends each changed result.
    func apply(_ version: LiveVersion<Item>) {
        guard version.id > current.id else { return }
        current = version
        lastEvaluated = 0
        guard !groups.isEmpty else { return }
        var found: [ObjectIdentifier: LiveQueryGroup<Query>] = [:]
        for change in version.changes {
            for item in [change.before, change.after] {
                guard let item else { continue }
                index.collect(into: &found) { field in Query.indexValue(of: item, field: field) }
            }
        }
        found.merge(index.unfiledMembers) { first, _ in first }
        for group in found.values where group.isTouched(by: version.changes) {
            update(group, to: version)
        }
    }

    /// Evaluates `group` over `version` and sends the change of its result to its clients.
    private func update(_ group: LiveQueryGroup<Query>, to version: LiveVersion<Item>) {
        lastEvaluated += 1
        guard let result = group.query.evaluate(version.items) else { return }
        let keys = result.items.map(collection.key)
        let change = LiveResultChange(
            from: group.result, keys: group.keys, to: result, newKeys: keys, encode: collection.encodeItem)
        let totalChanged = group.result.total != result.total
        group.result = result
        group.keys = keys
        guard !change.isEmpty || totalChanged else { return }
        group.resultFrame = nil
        let frame = LiveFrame.change(id: version.id, change: change)
        var dropped: [EventClient] = []
        for client in group.clients where !client.deliver(frame: frame, id: version.id) {
            dropped.append(client)
        }
        for client in dropped { remove(client, from: group.key) }
    }

    // MARK: Clients

    /// Starts a client of `query` (its text `key`) on `stream`: a `result` event, or with `lastEventID` the
    /// change since the version the client had (nothing if none), or a `result` when that version is no
    /// longer known. Call on the loop.
    func add(_ stream: any HTTPStream, query: Query, key: String, lastEventID: UInt64?, attempt: Int = 0) {
        guard !stream.isClosed else { return }
        guard !isFinished else {
            stream.close()
            return
        }
        var since = lastEventID.flatMap { collection.version(atOrBefore: $0) }
        if let known = since, known.id > current.id {
            // The client saw a version this loop has not applied yet (it is on its way here): wait for it.
            if attempt < Self.maxWaits {
                yieldToLoop { [weak self] in
                    self?.add(stream, query: query, key: key, lastEventID: lastEventID, attempt: attempt + 1)
                }
                return
            }
            since = nil
        }
        guard let group = group(for: query, key: key) else {
            stream.close()
            return
        }
        var frames = [LiveFrame.retry]
        if let since, let old = group.query.evaluate(since.items) {
            let change = LiveResultChange(
                from: old, keys: old.items.map(collection.key), to: group.result, newKeys: group.keys,
                encode: collection.encodeItem)
            if !change.isEmpty || old.total != group.result.total {
                frames.append(LiveFrame.change(id: current.id, change: change))
            }
        } else {
            frames.append(resultFrame(of: group))
        }
        let client = EventClient(
            stream: stream, topics: [], diff: false, cap: collection.engine.clientCap,
            window: collection.engine.clientWindow)
        // NB: the first result counts toward the cap: a client that reads none of a large one is cut off
        // at the next heartbeat or change, and the result's memory goes with it.
        client.start(EventReplay(frames: frames, lastID: current.id, resumeAfter: nil, countsTowardCap: true))
        group.clients.append(client)
        stream.onClose { [weak self] in self?.remove(client, from: key) }
    }

    /// Turns of the loop a resuming client waits for the version it saw to arrive here.
    private static var maxWaits: Int { 1000 }

    /// The group of `key`, made (its result evaluated over the current version) when it is the first.
    private func group(for query: Query, key: String) -> LiveQueryGroup<Query>? {
        if let existing = groups[key] { return existing }
        guard let result = query.evaluate(current.items) else { return nil }
        let group = LiveQueryGroup(key: key, query: query, result: result, keys: result.items.map(collection.key))
        groups[key] = group
        index.insert(group, terms: group.terms)
        return group
    }

    private func resultFrame(of group: LiveQueryGroup<Query>) -> SharedBytes {
        if let frame = group.resultFrame { return frame }
        let frame = LiveFrame.result(
            id: current.id, items: group.result.items.map(collection.encodeItem), total: group.result.total)
        group.resultFrame = frame
        return frame
    }

    /// Takes a client out (its stream ended); the last client of a group takes the group out.
    private func remove(_ client: EventClient, from key: String) {
        guard let group = groups[key], let position = group.clients.firstIndex(where: { $0 === client }) else {
            return
        }
        group.clients.swapAt(position, group.clients.count - 1)
        group.clients.removeLast()
        if group.clients.isEmpty {
            groups[key] = nil
            index.remove(group, terms: group.terms)
        }
    }

    /// Sends `: keep-alive` to every client.
    func beat() {
        for group in Array(groups.values) {
            var dropped: [EventClient] = []
            for client in group.clients where !client.heartbeat() { dropped.append(client) }
            for client in dropped { remove(client, from: group.key) }
        }
    }

    /// Ends every client's stream with `frame` last (the collection was removed from the data file) and
    /// refuses new ones; from any thread.
    func end(with frame: SharedBytes) {
        yieldToLoop { [weak self] in
            guard let self else { return }
            isFinished = true
            heartbeatTimer?.cancel()
            heartbeatTimer = nil
            let all = groups.values.flatMap(\.clients)
            groups = [:]
            index = LiveQueryIndex()
            for client in all { client.end(with: frame) }
        }
    }

    /// Ends every client's stream (the server shuts down) and refuses new ones.
    func finishAll() {
        isFinished = true
        heartbeatTimer?.cancel()
        heartbeatTimer = nil
        let all = groups.values.flatMap(\.clients)
        groups = [:]
        index = LiveQueryIndex()
        for client in all { client.finish() }
    }
}
