import Foundation
import HTTP
import Reactive
import Support
import Synchronization

/// One collection's live queries: its items as they follow the writes (`LiveMirror`), the changes of the
/// newest writes (a bounded history, for `Last-Event-ID`), one `LiveQueryFanout` per event loop, and the
/// `GET` reply that opens a live query.
///
/// A collection is registered once with `LiveQueryEngine.register`; whatever publishes its events then
/// hands it each write with the event id it took, in id order (from `EventHub`, under the hub's lock, so a
/// live query's ids are the `/events` ids, on every instance): a data file's collection its edits
/// (`publish(id:edits:)`, one lookup by key each), a seed list the view model's carrier (`publish(id:version:)`:
/// the one item its write changed, or the whole new list when the list was replaced).
/// Either becomes one `LiveVersion` of the changed items, which every loop's live queries place by
/// themselves; nothing per write costs the collection's size.
///
/// A collection with a `source` (a data file's: it may be large) follows its items only while a live query
/// of it is open: the first one reads them from the source, and the first write after the last one closed
/// drops them. Usage: `LiveQueryEngine.register`.
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
    /// The items now and the id of the newest event they show, for a collection followed only while a live
    /// query is open; nil: the publisher sends every list.
    private let source: (@Sendable () -> (items: [Item], id: UInt64))?
    /// A query's candidates read from an index of the source (a superset of the items that pass its
    /// filters, in any order) and the id of the newest event they show; nil when no index serves it.
    private let narrow: Narrow?
    /// The collection's items in a query's order (its sort's, ties in the collection's) as of the event id it
    /// gives, which may be older than the newest; nil when no kept order serves the query.
    let ordered: Narrow?

    /// See `narrow`, `ordered`.
    typealias Narrow = @Sendable (Query) -> (items: [Item], id: UInt64)?
    /// What `snapshot(for:)` gives: the items, the id of the newest version they show, which presence fields
    /// some item has then, and with a `total`, the items are the query's first in its order, not candidates
    /// (`ranked` instead, with their sort keys, when ranked already: read from a kept order, they share its
    /// chunks).
    typealias Snapshot = (
        entries: [LiveEntry<Item>], id: UInt64, present: Set<String>, total: Int?,
        ranked: LiveChunks<LiveRanking<Query>.Ranked>?
    )

    /// NB: not private, for the extensions in other files; nothing else reads it.
    struct State {
        /// The items as of `newestID`; nil while not followed.
        var mirror: LiveMirror<Item>?
        /// The writes published while the mirror is read from the source, in id order.
        var pending: [(id: UInt64, edits: [LiveEdit<Item>])]?
        /// The id of the newest version.
        var newestID: UInt64 = 0
        /// The newest versions, oldest first.
        var history: LiveHistory<Item> = []
        /// The items the history's versions hold together: what its item bound counts.
        var heldItems = 0
        /// The oldest id whose result the history can still rebuild (each version after it is kept).
        var floor: UInt64 = 0
        /// Whether some item has each field a live query reads by presence.
        var presence = LivePresence()
        /// The items in the order of each sort live queries use, as of `newestID`.
        var orders = LiveOrders<Query>()
        /// Until when the items are followed with no live query open: an order was made for one about to open.
        var keptUntil: ContinuousClock.Instant?
        /// Per event loop (or test scheduler), its fan-out.
        var fanouts: [ObjectIdentifier: LiveQueryFanout<Query>] = [:]
        var isShutDown = false
    }

    let state: Mutex<State>
    /// Held while the mirror is read from the source, so a second live query waits for the first's read.
    private let reading = Mutex(())
    /// Open live-query streams of this collection.
    let streams = Atomic<Int>(0)

    /// `source`: see the type's note; nil for a collection whose every list is published.
    init(
        name: String, engine: LiveQueryEngine, key: @escaping @Sendable (Item) -> String,
        encode: @escaping @Sendable (Item) -> [UInt8],
        source: (@Sendable () -> (items: [Item], id: UInt64))? = nil, narrow: Narrow? = nil, ordered: Narrow? = nil
    ) {
        self.name = name
        self.engine = engine
        state = Mutex(State(orders: LiveOrders(idle: engine.limits.orderIdle)))
        self.key = key
        encodeItem = encode
        self.source = source
        self.narrow = narrow
        self.ordered = ordered
    }

    // MARK: Versions

    /// Records the collection as the event `id` left it (`items`, in the collection's order): the changes
    /// from the list before, as one version for every loop. Ids must grow; an id at or below the newest is
    /// ignored, and so is a list equal to the one before.
    ///
    /// Cost: a lookup per item (the seed lists are small); a list in an order its changes cannot give
    /// replaces the collection (every query is evaluated again).
    func publish(id: UInt64, items: [Item]) {
        state.withLock { state in
            guard !state.isShutDown, id > state.newestID else { return }
            if var mirror = state.mirror, let changes = mirror.replace(with: items, key: key) {
                state.mirror = mirror
                guard !changes.isEmpty else { return }
                record(LiveVersion(id: id, changes: changes), in: &state)
            } else {
                let mirror = LiveMirror(items: items, key: key)
                state.mirror = mirror
                state.history = []
                state.heldItems = 0
                state.floor = id
                record(LiveVersion(id: id, changes: [], replaced: mirror.entries), in: &state)
            }
        }
    }

    /// Records the write of event `id` as the view model that applied it tells it (`Versioned.change`): the
    /// one item put or removed, by key, as a data file's edit is. A list without a change (the first, or one
    /// replaced whole), or with one the collection's order cannot follow (an item inserted before the last),
    /// is recorded whole (`publish(id:items:)`).
    func publish<List: RandomAccessCollection<Item>>(id: UInt64, version: Versioned<List, ListChange<Item>>) {
        let isFollowed = source == nil && state.withLock { $0.mirror != nil }
        guard isFollowed, let change = version.change else { return publish(id: id, items: Array(version.value)) }
        switch change {
        case .inserted(let item, let index) where index == version.value.count - 1:
            publish(id: id, edits: [.put(item)])
        case .updated(let item, _):
            publish(id: id, edits: [.put(item)])
        case .deleted(let item, _):
            publish(id: id, edits: [.remove(key: key(item))])
        case .inserted:
            publish(id: id, items: Array(version.value))
        case .unchanged:
            // NB: as `publish(id:items:)` does with a list equal to the one before: no version.
            return
        }
    }

    /// Applies the writes of event `id` (in id order), as one version for every loop: a lookup by key per
    /// edit. Dropped while the collection is not followed (no live query of it is open).
    func publish(id: UInt64, edits: [LiveEdit<Item>]) {
        state.withLock { state in
            guard !state.isShutDown else { return }
            if state.pending != nil {
                state.pending?.append((id, edits))
                return
            }
            guard state.mirror != nil else { return }
            if source != nil, streams.load(ordering: .relaxed) == 0,
                state.keptUntil.map({ $0 < .now }) ?? true
            {
                // NB: nobody follows the collection: drop what following it holds (a large file's keys).
                state.mirror = nil
                state.history = []
                state.heldItems = 0
                state.presence.removeAll()
                state.orders.removeAll()
                return
            }
            apply(id: id, edits: edits, in: &state)
        }
    }

    private func apply(id: UInt64, edits: [LiveEdit<Item>], in state: inout State) {
        guard var mirror = state.mirror, id > state.newestID else { return }
        // NB: taken out while it changes, so the edit does not copy the mirror's storage.
        state.mirror = nil
        let changes = edits.compactMap { mirror.apply($0, key: key) }
        state.mirror = mirror
        state.newestID = id
        guard !changes.isEmpty else { return }
        var version = LiveVersion(id: id, changes: changes)
        version.presence = state.presence.changes(changes, in: mirror, has: Query.item(_:has:))
        if !version.presence.isEmpty { version.entries = mirror.entries }
        record(version, in: &state)
    }

    private func record(_ version: LiveVersion<Item>, in state: inout State) {
        state.newestID = version.id
        var version = version
        version.places = state.orders.apply(version)
        var kept = version
        kept.entries = nil
        kept.places = [:]
        state.history.append(kept)
        state.heldItems += version.replaced?.count ?? version.changes.count
        let limits = engine.limits
        var dropped = 0
        while state.history.count - dropped > 1,
            state.history.count - dropped > limits.historyVersions || state.heldItems > limits.historyItems
        {
            let oldest = state.history[dropped]
            state.heldItems -= oldest.replaced?.count ?? oldest.changes.count
            state.floor = max(state.floor, oldest.id)
            dropped += 1
        }
        if dropped > 0 { state.history.removeFirst(dropped) }
        // NB: posted while holding `state`'s lock, so every loop sees the versions in id order.
        for fanout in state.fanouts.values { fanout.post(version) }
    }

    /// The items now, in the collection's order, and the id of the newest version they show (read from the
    /// source first when the collection is not followed yet); nil after shutdown.
    func snapshot() -> (entries: [LiveEntry<Item>], id: UInt64)? {
        follow()
        let mirror = state.withLock { state in state.mirror.map { ($0, state.newestID) } }
        // NB: the entries are listed outside the lock; the copy shares the mirror's storage until a write.
        return mirror.map { ($0.0.entries, $0.1) }
    }

    /// The items `query` can hold now, in the collection's order, the id of the newest version they show,
    /// and which of its presence fields some item has then (`LiveQuery.reading(present:)`; with `tracking`
    /// they are followed from now on, until `untrack`): the candidates an index of the source gives (`narrow`),
    /// when the source's items are those the collection shows, else every item; nil after shutdown. A
    /// bounded query without an equality filter that a kept order serves (`ordered`) gets its first items in
    /// its order and its `total` instead (`ranked`).
    ///
    /// NB: the source changes before its change is published here, so its candidates are taken only when
    /// they show the same event as the collection; a write in between is read again, and a source whose ids
    /// do not line up with the collection's (a catch-up change took a local id) falls back to every item.
    func snapshot(for query: Query, tracking: Bool = true) -> Snapshot? {
        follow()
        let fields = query.presenceFields
        let tracked = state.withLock { state in
            state.mirror.map { mirror in
                tracking
                    ? state.presence.track(fields, in: mirror, has: Query.item(_:has:)) : state.presence.present(fields)
            }
        }
        guard var present = tracked else { return nil }
        if let ranked = ranked(query, present: present) { return ranked }
        for _ in 0..<(narrow == nil ? 0 : Self.narrowAttempts) {
            let reading = query.reading(present: present)
            guard let (items, id) = narrow?(reading) else { break }
            let found = state.withLock { state -> (entries: [LiveEntry<Item>], id: UInt64)?? in
                guard let mirror = state.mirror else { return .some(nil) }
                let now = state.presence.present(fields)
                guard state.newestID == id, now == present else {
                    present = now
                    return nil
                }
                var entries: [LiveEntry<Item>] = []
                entries.reserveCapacity(items.count)
                for item in items {
                    // NB: the same item as the collection holds, or the two do not show the same writes.
                    guard let entry = mirror.entry(forKey: key(item)), entry.item == item else { return nil }
                    entries.append(entry)
                }
                return (entries.sorted { $0.rank < $1.rank }, id)
            }
            if let found {
                guard let found else { break }
                return (found.entries, found.id, present, nil, nil)
            }
            sched_yield()
        }
        let every = state.withLock { state in
            state.mirror.map { ($0, state.newestID, state.presence.present(fields)) }
        }
        // NB: the entries are listed outside the lock; the copy shares the mirror's storage until a write.
        return every.map { ($0.0.entries, $0.1, $0.2, nil, nil) }
    }

    /// Stops following the presence of `fields` for a group that read them (`snapshot(for:)`).
    func untrack(_ fields: [String]) {
        guard !fields.isEmpty else { return }
        state.withLock { $0.presence.untrack(fields) }
    }

    /// Reads of the candidates before a live query falls back to every item.
    private static var narrowAttempts: Int { 64 }

    /// Reads the items from the source when the collection is not followed: the writes published meanwhile
    /// wait, then apply after the items read (those the read already shows are skipped by their ids).
    func follow() {
        guard let source else { return }
        reading.withLock { _ in
            let needed = state.withLock { state in
                guard state.mirror == nil, !state.isShutDown else { return false }
                state.pending = []
                return true
            }
            guard needed else { return }
            let (items, id) = source()
            let mirror = LiveMirror(items: items, key: key)
            state.withLock { state in
                let pending = state.pending ?? []
                state.pending = nil
                state.mirror = mirror
                state.newestID = max(state.newestID, id)
                state.floor = state.newestID
                state.history = []
                state.heldItems = 0
                state.orders.removeAll()
                state.presence.reread(from: mirror, has: Query.item(_:has:))
                // NB: those the read shows already have ids at or below the read's: `apply` skips them.
                for write in pending { apply(id: write.id, edits: write.edits, in: &state) }
            }
        }
    }

    /// The changes of the versions after `id` up to `newest`, oldest first; nil when the history no longer
    /// reaches back to `id`.
    func changes(after id: UInt64, through newest: UInt64) -> [LiveItemChange<Item>]? {
        state.withLock { state in
            guard id >= state.floor, state.mirror != nil || source == nil else { return nil }
            let missed = state.history.filter { $0.id > id && $0.id <= newest }
            // NB: a query may read differently since a change of presence: its changes cannot rewind it.
            guard missed.allSatisfy(\.presence.isEmpty) else { return nil }
            return missed.flatMap(\.changes)
        }
    }

    /// The id of the newest version; 0 before the first.
    var newestID: UInt64 { state.withLock { $0.newestID } }

    /// How many versions the history holds.
    var historyCount: Int { state.withLock { $0.history.count } }

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
            // NB: made and filed under the lock `publish` posts under: no version falls between the current
            // one and the first the fan-out receives.
            let fanout = LiveQueryFanout(
                collection: self, currentID: state.newestID, scheduler: scheduler, heartbeat: engine.heartbeat)
            state.fanouts[key] = fanout
            if state.isShutDown { fanout.postEnd() }
            return fanout
        }
    }

    /// Whether the collection's items are at hand: every list is published, or a live query follows them.
    var isFollowed: Bool { source == nil || state.withLock { $0.mirror != nil } }

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
        state.withLock { state in
            guard !state.isShutDown else { return }
            state.isShutDown = true
            for fanout in state.fanouts.values { fanout.postEnd() }
        }
    }
}
