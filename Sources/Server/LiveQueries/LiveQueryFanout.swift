import HTTP
import Reactive
import Synchronization

/// The live queries of one collection on one event loop: the collection's versions, handed over in batches
/// (`post`), the loop's queries grouped by their text (`LiveQueryGroup`) and indexed by their equality filter
/// (`LiveQueryIndex`), and the heartbeat of their clients.
///
/// A version's changed items are looked up in the index (plus the groups without an equality filter); a
/// group places each of them in its sorted items (`LiveRanking`), testing its filters on them alone, and
/// only a group whose result changed sends anything: one shared frame to each of its clients. The frames
/// go out `sliceSize` clients at a time, yielding to the loop between slices, as `/events` does.
///
/// The versions the collection records while the loop is busy wait in an inbox and are applied together at
/// the loop's next turn: one wake-up of the loop per batch, not per write, and each client's frames of the
/// batch written as one chunk (one `sendmsg`) once the loop has polled its sockets, with the frames of the
/// versions that came meanwhile, so a burst of writes costs the loop and each client one write, not one
/// per version. A version none of the loop's queries can take (`LiveQueryInterest`, read
/// under the inbox's lock) wakes nobody: it waits for the next turn another version queues, and is applied
/// then (the loop's newest id moves on), so a write to the items of one loop's queries leaves the other
/// loops asleep.
///
/// Used on its loop only, except `init`, `post` and `postEnd`.
final class LiveQueryFanout<Query: LiveQuery>: @unchecked Sendable {
    // NB: @unchecked because everything but `init`, `post` and `postEnd` runs on the loop: versions arrive
    // through the inbox, taken on the loop, and clients are added and removed by their streams' callbacks.
    typealias Item = Query.Item

    /// One frame for one client, waiting for its slice.
    private struct Delivery {
        var frame: SharedBytes
        var id: UInt64
        var client: EventClient
        var group: String
    }

    /// The versions posted and not taken by the loop yet.
    private struct Inbox {
        var versions: [LiveVersion<Item>] = []
        /// Whether a turn of the loop is queued to take them.
        var isScheduled = false
        /// Whether the collection ended (shutdown): after the versions, every client's stream ends.
        var isEnded = false
        /// What the loop's groups are filed under: whether a version posted needs a turn.
        var interest = LiveQueryInterest()
    }

    private unowned let collection: LiveCollection<Query>
    /// The id of the newest version this loop applied.
    private(set) var currentID: UInt64
    private var groups: [String: LiveQueryGroup<Query>] = [:]
    private var index = LiveQueryIndex<LiveQueryGroup<Query>>()
    private let inbox = Mutex(Inbox())
    private var heartbeatTimer: (any Cancellable)?
    private let runOnLoop: (@escaping () -> Void) -> Void
    private let yieldToLoop: (@escaping () -> Void) -> Void
    private var isFinished = false
    /// Frames not handed to their clients yet, in order, from `next` on.
    private var outbox: [Delivery] = []
    private var next = 0
    private var isSliceScheduled = false
    /// How many groups the last version changed (tests read it).
    private(set) var lastChanged = 0
    /// How many groups the last version's items were tested against (tests read it).
    private(set) var lastTested = 0
    /// How many versions the loop took in its last turn (tests read it).
    private(set) var lastBatch = 0

    /// Clients handed a frame before the fan-out yields to the loop.
    static var sliceSize: Int { 256 }

    /// Versions that touch none of the loop's queries waiting in the inbox before one queues a turn anyway,
    /// so that they do not pile up.
    static var maxWaiting: Int { 64 }

    /// A fan-out on `scheduler` that shows version `currentID` and takes the versions after it from `post`;
    /// starts the heartbeat.
    init<S: Scheduler>(
        collection: LiveCollection<Query>, currentID: UInt64, scheduler: S, heartbeat: Double?
    ) {
        self.collection = collection
        self.currentID = currentID
        runOnLoop = { work in scheduler.schedule(options: nil, work) }
        yieldToLoop = { work in scheduler.schedule(after: scheduler.now, work) }
        heartbeatTimer = scheduler.heartbeat(every: heartbeat) { [weak self] in self?.beat() }
    }

    deinit {
        heartbeatTimer?.cancel()
    }

    /// How many distinct queries this loop follows.
    var groupCount: Int { groups.count }

    // MARK: Versions

    /// Hands `version` to the loop (from the thread that recorded it, in id order): it waits in the inbox
    /// with any others until the loop's next turn takes them all. The first version of a batch that can
    /// touch one of the loop's queries queues that turn.
    func post(_ version: LiveVersion<Item>) {
        let wake = inbox.withLock { inbox in
            inbox.versions.append(version)
            guard !inbox.isScheduled,
                inbox.versions.count >= Self.maxWaiting
                    || inbox.interest.touches(version, value: { Query.indexValue(of: $0, field: $1) })
            else { return false }
            inbox.isScheduled = true
            return true
        }
        if wake { runOnLoop { [self] in takeInbox() } }
    }

    /// Ends every client's stream on the loop, after the versions posted before (the collection shut down).
    func postEnd() {
        let wake = inbox.withLock { inbox in
            inbox.isEnded = true
            defer { inbox.isScheduled = true }
            return !inbox.isScheduled
        }
        if wake { runOnLoop { [self] in takeInbox() } }
    }

    /// Files `group` under `terms` in the index and the inbox's interest. Versions waiting without a turn were
    /// posted before the group counted: they get one, in case the group takes them.
    private func file(_ group: LiveQueryGroup<Query>, terms: LiveIndexTerms?) {
        index.insert(group, terms: terms)
        let wake = inbox.withLock { inbox in
            inbox.interest.insert(terms)
            guard !inbox.isScheduled, !inbox.versions.isEmpty else { return false }
            inbox.isScheduled = true
            return true
        }
        if wake { runOnLoop { [self] in takeInbox() } }
    }

    /// Takes `group` out of the index and the inbox's interest (it was filed under `terms`).
    private func unfile(_ group: LiveQueryGroup<Query>, terms: LiveIndexTerms?) {
        index.remove(group, terms: terms)
        inbox.withLock { $0.interest.remove(terms) }
    }

    /// Applies every version waiting in the inbox; their frames go out after the loop has polled its sockets
    /// (`flush`), so the versions that reach the inbox meanwhile (the writes of this turn's requests, or the
    /// rest of a group commit) share each client's one write with them.
    private func takeInbox() {
        guard !applyInbox() else { return finishAll() }
        guard !isSliceScheduled, next < outbox.count else { return }
        isSliceScheduled = true
        yieldToLoop { [weak self] in self?.flush() }
    }

    /// Applies the versions waiting in the inbox (a turn queued for them finds it empty); true when the
    /// collection ended.
    private func applyInbox() -> Bool {
        let (versions, isEnded) = inbox.withLock { inbox in
            defer {
                inbox.versions = []
                inbox.isScheduled = false
            }
            return (inbox.versions, inbox.isEnded)
        }
        if !versions.isEmpty { lastBatch = versions.count }
        for version in versions { apply(version) }
        return isEnded
    }

    /// Takes what reached the inbox since the frames waiting were made, then hands the frames out.
    private func flush() {
        guard !applyInbox() else { return finishAll() }
        deliverSlice()
    }

    // NB: specialized for a data file's queries: the live path is reached through generic code, where each
    // call looked up generic metadata (a third of `LiveRanking.apply`'s time in a release profile).
    /// Applies the next version: each group its changed items can belong to places them, and each changed
    /// result waits in the outbox for the group's clients.
    @_specialize(where Query == DocumentLiveQuery)
    private func apply(_ version: LiveVersion<Item>) {
        guard version.id > currentID else { return }
        currentID = version.id
        lastChanged = 0
        lastTested = 0
        guard !groups.isEmpty else { return }
        var found: [ObjectIdentifier: LiveQueryGroup<Query>] = [:]
        if version.replaced != nil {
            for group in groups.values { found[ObjectIdentifier(group)] = group }
        } else {
            for change in version.changes {
                for entry in [change.before, change.after] {
                    guard let item = entry?.item else { continue }
                    index.collect(into: &found) { field in Query.indexValue(of: item, field: field) }
                }
            }
            found.merge(index.unfiledMembers) { first, _ in first }
            if !version.presence.isEmpty {
                for group in groups.values where group.readsAnew(version) { found[ObjectIdentifier(group)] = group }
            }
        }
        for group in found.values where group.madeAt < version.id {
            lastTested += 1
            let terms = group.terms
            let change = group.apply(version) { [collection] query in collection.snapshot(for: query, tracking: false) }
            if group.terms != terms {
                unfile(group, terms: terms)
                file(group, terms: group.terms)
            }
            guard let change else { continue }
            lastChanged += 1
            group.resultFrame = nil
            // NB: a group that read its items anew shows a newer version than this one: its id.
            let id = max(version.id, group.madeAt)
            let frame = LiveFrame.change(id: id, change: change)
            for client in group.clients {
                outbox.append(Delivery(frame: frame, id: id, client: client, group: group.key))
            }
        }
    }

    /// Hands the waiting frames to the next `sliceSize` clients, then yields to the loop before the rest. A
    /// client with several frames in the slice (versions taken together) gets them in one write.
    private func deliverSlice(upTo limit: Int = sliceSize) {
        isSliceScheduled = false
        let end = min(outbox.count, next + limit)
        var dropped: [(EventClient, String)] = []
        // Each client's frames of the slice, in order; clients in the order of their first frame.
        var batches: [(delivery: Delivery, frames: [(frame: SharedBytes, id: UInt64)])] = []
        var batchOf: [ObjectIdentifier: Int] = [:]
        for delivery in outbox[next..<end] {
            let client = ObjectIdentifier(delivery.client)
            if let batch = batchOf[client] {
                batches[batch].frames.append((delivery.frame, delivery.id))
            } else {
                batchOf[client] = batches.count
                batches.append((delivery, [(delivery.frame, delivery.id)]))
            }
        }
        for (delivery, frames) in batches where !delivery.client.deliver(frames: frames) {
            dropped.append((delivery.client, delivery.group))
        }
        next = end
        if next == outbox.count {
            outbox.removeAll(keepingCapacity: outbox.count <= 4 * Self.sliceSize)
            next = 0
        }
        for (client, group) in dropped { remove(client, from: group) }
        guard next < outbox.count, !isSliceScheduled else { return }
        isSliceScheduled = true
        yieldToLoop { [weak self] in self?.flush() }
    }

    // MARK: Clients

    /// Starts a client of `query` (its text `key`) on `stream`: a `result` event, or with `lastEventID` the
    /// change since the version the client had (nothing if none), or a `result` when that version is no
    /// longer known. Call on the loop.
    func add(_ stream: any HTTPStream, query: Query, key: String, lastEventID: UInt64?, attempt: Int = 0) {
        guard !stream.isClosed else { return }
        // NB: versions that touched no query here wait without a turn; the client is shown the newest.
        if inbox.withLock({ !$0.versions.isEmpty }) { takeInbox() }
        guard !isFinished else {
            stream.close()
            return
        }
        guard let group = group(for: query, key: key) else {
            stream.close()
            return
        }
        let shown = max(currentID, group.madeAt)
        var frames = [LiveFrame.retry]
        switch lastEventID {
        case let seen? where seen > shown:
            if shown < collection.newestID, attempt < Self.maxWaits {
                // The client may have seen a version this loop has not applied yet (it is on its way): wait.
                yieldToLoop { [weak self] in
                    self?.add(stream, query: query, key: key, lastEventID: lastEventID, attempt: attempt + 1)
                }
                return
            }
            // NB: newer than every version (an id of another stream of the server): it holds the result.
            if shown < collection.newestID { frames.append(resultFrame(of: group, id: shown)) }
        case let seen?:
            if let missed = collection.changes(after: seen, through: shown), let change = group.change(since: missed) {
                if let change { frames.append(LiveFrame.change(id: shown, change: change)) }
            } else {
                frames.append(resultFrame(of: group, id: shown))
            }
        case nil:
            frames.append(resultFrame(of: group, id: shown))
        }
        let client = EventClient(
            stream: stream, topics: [], diff: false, cap: collection.engine.clientCap,
            window: collection.engine.clientWindow)
        // NB: the first result counts toward the cap: a client that reads none of a large one is cut off
        // at the next heartbeat or change, and the result's memory goes with it.
        client.start(EventReplay(frames: frames, lastID: shown, resumeAfter: nil, countsTowardCap: true))
        group.clients.append(client)
        stream.onClose { [weak self] in self?.remove(client, from: key) }
    }

    /// Turns of the loop a resuming client waits for the version it saw to arrive here.
    private static var maxWaits: Int { 1000 }

    /// The group of `key`, made from the collection's items now when it is the first.
    private func group(for query: Query, key: String) -> LiveQueryGroup<Query>? {
        if let existing = groups[key] { return existing }
        guard let snapshot = collection.snapshot(for: query) else { return nil }
        let group = LiveQueryGroup(
            key: key, query: query, present: snapshot.present, entries: snapshot.entries, madeAt: snapshot.id,
            margin: collection.engine.limits.windowMargin, total: snapshot.total, ranked: snapshot.ranked,
            encode: collection.encodeItem)
        groups[key] = group
        file(group, terms: group.terms)
        collection.useOrder(of: query, by: 1)
        return group
    }

    private func resultFrame(of group: LiveQueryGroup<Query>, id: UInt64) -> SharedBytes {
        if let frame = group.resultFrame { return frame }
        let result = group.ranking.result
        let frame = LiveFrame.result(id: id, items: result.items.map(group.encode), total: result.total)
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
            unfile(group, terms: group.terms)
            collection.untrack(group.query.presenceFields)
            collection.useOrder(of: group.query, by: -1)
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
            for client in stop() { client.end(with: frame) }
        }
    }

    /// Ends every client's stream (the server shuts down) and refuses new ones.
    func finishAll() {
        // The frames that came before the completion still go out first.
        if next < outbox.count { deliverSlice(upTo: Int.max) }
        for client in stop() { client.finish() }
    }

    /// Refuses new clients, stops the heartbeat and lets go of every group: the clients it held, to end.
    private func stop() -> [EventClient] {
        isFinished = true
        heartbeatTimer?.cancel()
        heartbeatTimer = nil
        let all = groups.values.flatMap(\.clients)
        groups = [:]
        index = LiveQueryIndex()
        inbox.withLock { $0.interest.removeAll() }
        return all
    }
}
