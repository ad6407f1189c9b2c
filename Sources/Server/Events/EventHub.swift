import Domain
import Foundation
import HTTP
import Reactive
import Support
import Synchronization

/// The heart of `/events`: subscribes once to each topic's subject, encodes each emission once into its
/// SSE frame, numbers it, keeps the recent ones for `Last-Event-ID`, and hands it to one `EventFanout`
/// per event loop, which writes it to that loop's clients.
///
/// ```swift
/// let hub = EventHub()
/// hub.attach(.posts, collection: models.posts.posts)
/// // on a connection's loop:
/// hub.connect(stream, topics: [.posts], diff: false, lastEventID: nil)
/// ```
final class EventHub: Sendable {
    /// What the hub remembers, under one lock.
    private struct State {
        /// The recent events, for resume.
        var log: EventLog
        /// The latest event of each current-value topic: the replay of a first connect.
        var current: [EventTopic: EventRecord] = [:]
        /// Per event loop (or test scheduler), its fan-out.
        var fanouts: [ObjectIdentifier: EventFanout] = [:]
        /// Set by `shutdown()`: no new clients, every stream ended.
        var isShutDown = false
        /// While a restarted server sends its newest entries through the view models again (`replaying`):
        /// the id of the entry before them, and per topic the newest value emitted meanwhile that none of
        /// them made (the state before them, which the view models show at attach), kept out of the log.
        var replay: (floor: UInt64, held: [EventTopic: Held])?
        /// Topics whose current value is read from their source at connect time (its JSON and the id of
        /// the newest event it shows), instead of kept as the last event.
        var currentSources: [EventTopic: @Sendable () -> (json: [UInt8], id: UInt64)] = [:]
        /// Set once the journal's entries are delivered out of order (`ordersByDelivery`): the emissions
        /// waiting for the entries before theirs.
        var order: EventReorder?
    }

    /// A value emitted during a replay that no replayed entry made: an event only if none replaced it.
    private struct Held {
        var data: EventData
        var diff: [UInt8]?
        var recorded: @Sendable (UInt64) -> Void
    }

    /// Seconds between `: keep-alive` comments; nil sends none.
    let heartbeat: Double?
    /// The cap on unsent live output per client.
    let clientCap: Int
    /// The replay output each client keeps in flight (`EventClient.window`).
    let clientWindow: Int

    private let ids: EventIDSource
    private let state: Mutex<State>
    // NB: sent while holding `state`'s lock, so every loop sees the events in id order.
    private let feed = PassthroughSubject<EventRecord, Never>()
    private let upstream = Mutex<[AnyCancellable]>([])

    /// Creates a hub that remembers the last `bufferCount` events, or fewer when those would take more
    /// than `bufferBytes` (the contract: 1024 events, 16 MiB).
    init(
        ids: EventIDSource = EventIDSource(), bufferCount: Int = EventLog.defaultCount,
        bufferBytes: Int = EventLog.defaultBytes, heartbeat: Double? = 15, clientCap: Int = EventClient.defaultCap,
        clientWindow: Int = EventClient.defaultWindow
    ) {
        self.ids = ids
        self.clientWindow = clientWindow
        self.heartbeat = heartbeat
        self.clientCap = clientCap
        state = Mutex(State(log: EventLog(maxCount: bufferCount, maxBytes: bufferBytes)))
    }

    // MARK: Sources

    /// Subscribes once to `publisher`: each value becomes one event of `topic`, with a local id (no journal
    /// entry made it).
    func attach<P: Publisher>(_ topic: EventTopic, _ publisher: P)
    where P.Output: Encodable & Sendable, P.Failure == Never {
        attach(topic, versioned: publisher.map { Versioned(seq: nil, $0) })
    }

    /// `attach(_:_:)`, skipping `nil` (no value yet).
    func attach<P: Publisher, Value: Encodable & Sendable>(_ topic: EventTopic, optional publisher: P)
    where P.Output == Value?, P.Failure == Never {
        attach(topic, versioned: publisher.compactMap { $0.map { Versioned(seq: nil, $0) } })
    }

    /// Subscribes once to a view model's output: each value becomes one event of `topic`, whose id is the one
    /// its journal entry gives it (`Versioned.seq`, carried with the value) or, for a value no entry made, a
    /// local one.
    func attach<P: Publisher, Value: Encodable & Sendable>(_ topic: EventTopic, versioned publisher: P)
    where P.Output == Versioned<Value, Never>, P.Failure == Never {
        let encoder = Self.makeEncoder()
        keep(
            publisher.sink { [weak self] version in
                self?.publish(topic, journaled: Self.eventID(version.seq)) {
                    (try? encoder.encode(version.value)).map { (Array($0), nil) }
                }
            })
    }

    /// `attach(_:versioned:)`, skipping `nil` (no value yet).
    func attach<P: Publisher, Value: Encodable & Sendable>(_ topic: EventTopic, versionedOptional publisher: P)
    where P.Output == Versioned<Value?, Never>, P.Failure == Never {
        attach(
            topic, versioned: publisher.compactMap { version in version.value.map { Versioned(seq: version.seq, $0) } })
    }

    /// The event id of the journal entry `seq` (nil: no entry).
    static func eventID(_ seq: Int64?) -> UInt64? {
        seq.map { UInt64($0) * EventIDSource.journalBlock }
    }

    /// Subscribes once to a list's snapshot: each new list becomes one event whose data are the snapshot's
    /// bytes (encoded once, shared with the `GET` answer), with its change from the previous list encoded
    /// too (for `?diff=1` clients): the snapshot's own, which its encoder made from the view model's change,
    /// or, for a list without one, found by comparing it with the list before.
    ///
    /// `live` receives each list's carrier (its change and the list) with the id of its event, under the lock
    /// (so in id order): the live queries of the collection (`LiveCollection.publish(id:version:)`).
    func attach<List>(
        _ topic: EventTopic, collection snapshot: EncodedSnapshot<List, ListChange<List.Element>>,
        live: (@Sendable (_ id: UInt64, _ version: Versioned<List, ListChange<List.Element>>) -> Void)? = nil
    )
    where
        List: RandomAccessCollection & RangeReplaceableCollection & Encodable & Sendable,
        List.Element: Identifiable & Equatable & Encodable & Sendable, List.Element.ID: Encodable
    {
        let encoder = Self.makeEncoder()
        // NB: only touched inside `publish`'s lock, so emissions of this topic see each other in order.
        nonisolated(unsafe) var previous = List()
        keep(
            snapshot.snapshots.sink { [weak self] snapshot in
                self?.publish(
                    topic, journaled: Self.eventID(snapshot.version.seq),
                    encode: {
                        // NB: keeping the list costs a reference: it shares the snapshot's storage.
                        defer { previous = snapshot.value }
                        // NB: a list encoded item by item brings its change, built from the cached item bytes.
                        if let diff = snapshot.diff { return (snapshot.bytes, diff) }
                        let diff = CollectionDiff(from: previous, to: snapshot.value)
                        guard let diffJSON = try? encoder.encode(diff) else { return nil }
                        return (snapshot.bytes, Array(diffJSON))
                    },
                    recorded: { id in live?(id, snapshot.version) })
            })
    }

    /// Subscribes once to a publisher of lists through a snapshot of its own (`attach(_:collection:)` above),
    /// each list's change found by comparing it with the one before.
    func attach<P: Publisher, Element>(_ topic: EventTopic, collection publisher: P)
    where
        P.Output == [Element], P.Failure == Never,
        Element: Identifiable & Equatable & Encodable & Sendable, Element.ID: Encodable
    {
        let snapshot = EncodedSnapshot<[Element], ListChange<Element>>(
            versioned: publisher.map { Versioned(seq: nil, change: nil, $0) })
        attach(topic, collection: snapshot)
        keep(AnyCancellable { snapshot.cancel() })
    }

    /// Numbers, encodes (through `encode`, under the lock) and records one emission, then hands it to
    /// every loop; `recorded` gets the event's id, still under the lock. `journaled` is the id the emission's
    /// journal entry gives it, carried with the value; without one the event takes the next local id of `ids`.
    /// During a replay (`replaying`), an emission that no replayed entry made waits for its end.
    /// Emissions after `shutdown()` are dropped.
    func publish(
        _ topic: EventTopic, journaled: UInt64? = nil, encode: () -> (json: [UInt8], diff: [UInt8]?)?,
        recorded: @escaping @Sendable (UInt64) -> Void = { _ in }
    ) {
        publish(topic, journaled: journaled, data: { encode().map { (.json($0.json), $0.diff) } }, recorded: recorded)
    }

    /// `publish(_:journaled:encode:recorded:)` of data that may be written later (`EventData.later`: its
    /// frame is made when a client first reads it).
    func publish(
        _ topic: EventTopic, journaled: UInt64? = nil, data encode: () -> (data: EventData, diff: [UInt8]?)?,
        recorded: @escaping @Sendable (UInt64) -> Void = { _ in }
    ) {
        state.withLock { state in
            guard !state.isShutDown, let (data, diff) = encode() else { return }
            if let floor = state.replay?.floor {
                guard let journaled, journaled > floor else {
                    state.replay?.held[topic] = Held(data: data, diff: diff, recorded: recorded)
                    return
                }
                state.replay?.held[topic] = nil
            }
            if state.order != nil,
                state.order?.hold(
                    .init(topic: topic, journaled: journaled, data: data, diff: diff, recorded: recorded)) == true
            {
                return
            }
            record(topic, data: data, diff: diff, id: journaled.map { ids.next(journaled: $0) } ?? ids.next(), &state)
            recorded(state.log.lastID ?? 0)
        }
    }

    private func record(_ topic: EventTopic, data: EventData, diff: [UInt8]?, id: UInt64, _ state: inout State) {
        let record = EventRecord(id: id, topic: topic, data: data, diffJSON: diff)
        state.log.append(record)
        if topic.replaysCurrentValue, state.currentSources[topic] == nil { state.current[topic] = record }
        feed.send(record)
    }

    /// Reads the current value of `topic` from `source` whenever a client connects (see `State`).
    func current(_ topic: EventTopic, source: @escaping @Sendable () -> (json: [UInt8], id: UInt64)) {
        state.withLock { $0.currentSources[topic] = source }
    }

    /// Runs `replay`, which attaches the view models built on the state before the entries after `floor` (an
    /// entry's event id) and sends those entries through them again, oldest first (a restarted server's newest
    /// entries, `SeedRewind`): their events take their entries' ids, as in the run that committed them, so a
    /// `Last-Event-ID` from before the restart resumes from the log. What the view models showed before those
    /// entries is no event of theirs: for a topic that no replayed entry changed it becomes one afterwards,
    /// numbered after `last` (the newest entry's id), as a start's first values are. Before the first emission.
    func replaying(after floor: UInt64, last: UInt64, _ replay: () -> Void) {
        state.withLock { $0.replay = (floor, [:]) }
        replay()
        ids.raise(to: last)
        state.withLock { state in
            let held = state.replay?.held ?? [:]
            state.replay = nil
            guard !state.isShutDown else { return }
            for (topic, value) in held.sorted(by: { $0.key.slot < $1.key.slot }) {
                record(topic, data: value.data, diff: value.diff, id: ids.next(), &state)
                value.recorded(state.log.lastID ?? 0)
            }
        }
    }

    /// From now on, an emission waits to be published until every journal entry up to its own is delivered
    /// (`delivered(through:)`, from `delivered` on): the seeds deliver each view model's entries on a thread
    /// of its own, so their emissions come out of journal order, and the log must keep it. After `replaying`.
    func ordersByDelivery(from delivered: Int64) {
        state.withLock { $0.order = EventReorder(delivered: delivered) }
    }

    /// Every journal entry up to `entry` is in its view model: the emissions that waited for them are
    /// published, in journal order.
    func delivered(through entry: Int64) {
        state.withLock { state in
            guard let ready = state.order?.advance(to: entry), !state.isShutDown else { return }
            for held in ready {
                let id = held.journaled.map { ids.next(journaled: $0) } ?? ids.next()
                record(held.topic, data: held.data, diff: held.diff, id: id, &state)
                held.recorded(state.log.lastID ?? 0)
            }
        }
    }

    /// Puts the events a clean stop saved (a data file's, oldest first) back into the recent-events log, as
    /// they were, before the first emission of this run: a `Last-Event-ID` from before the restart resumes
    /// from them. The current values stay the view models' own.
    func restore(_ records: [EventRecord]) {
        state.withLock { state in
            for record in records where record.id > state.log.lastID ?? 0 { state.log.append(record) }
        }
    }

    /// Declares that this run makes every event after `id` again before its own (a data file's entries that
    /// the file did not show at a restart after `kill -9`, replayed): a `Last-Event-ID` from `id` on resumes
    /// from the log. Before the first event.
    func holdsEverything(after id: UInt64) {
        state.withLock { $0.log.holdsEverything(after: id) }
    }

    /// Every event the log holds, oldest first (what a data file's clean stop saves).
    var recorded: [EventRecord] { state.withLock { $0.log.held } }

    // MARK: Clients

    /// The fan-out of `loop`, made on first use.
    func fanout(for loop: any RequestLoop) -> EventFanout {
        fanout(key: ObjectIdentifier(loop), scheduler: loop)
    }

    /// The fan-out registered under `key`, made on first use with `scheduler` (tests pass their own).
    func fanout<S: Scheduler>(key: ObjectIdentifier, scheduler: S) -> EventFanout {
        state.withLock { state in
            if let existing = state.fanouts[key] { return existing }
            let fanout = EventFanout(
                feed: feed, scheduler: scheduler, heartbeat: heartbeat)
            state.fanouts[key] = fanout
            return fanout
        }
    }

    /// What a client connecting now is sent first: the `retry:` line, then either the current value of
    /// each current-value topic it asked for, oldest first, or (when the log still holds every event after
    /// `lastEventID`) nothing yet: the missed events are read from the log as the client reads
    /// (`readLog`).
    func replay(for topics: Set<EventTopic>, diff: Bool, after lastEventID: UInt64?) -> EventReplay {
        state.withLock { state in
            if let lastEventID, state.log.holdsEvents(after: lastEventID) {
                return EventReplay(frames: [Self.retry], lastID: lastEventID, resumeAfter: lastEventID)
            }
            // NB: a first connect gets whole lists, even with ?diff=1: the snapshot the changes apply to.
            var current = state.current.values.filter { topics.contains($0.topic) }
            var lastID = state.log.lastID ?? 0
            for (topic, source) in state.currentSources where topics.contains(topic) {
                let (json, id) = source()
                // NB: the source may show a change whose event is not published yet: the client skips it.
                lastID = max(lastID, id)
                current.append(EventRecord(id: max(id, 1), topic: topic, json: json))
            }
            current.sort { $0.id < $1.id }
            return EventReplay(frames: [Self.retry] + current.map(\.frame), lastID: lastID, resumeAfter: nil)
        }
    }

    /// The next frames of a resume after `id` (`EventLog.page`), under the lock.
    func readLog(after id: UInt64, topics: Set<EventTopic>, diff: Bool, maxBytes: Int) -> EventLog.Page? {
        state.withLock { $0.log.page(after: id, topics: topics, diff: diff, maxBytes: maxBytes) }
    }

    /// Starts a client on `stream` (call on the stream's loop): replay, then live events until the stream
    /// closes, the client falls more than the cap behind, or the hub shuts down.
    func connect(_ stream: any HTTPStream, topics: Set<EventTopic>, diff: Bool, lastEventID: UInt64?) {
        connect(stream, topics: topics, diff: diff, lastEventID: lastEventID, through: fanout(for: stream.loop))
    }

    /// `connect` through a given fan-out (tests pass one on their own scheduler).
    func connect(
        _ stream: any HTTPStream, topics: Set<EventTopic>, diff: Bool, lastEventID: UInt64?,
        through fanout: EventFanout
    ) {
        // NB: the fan-out subscribes to the feed before the replay is taken, so no event falls between.
        let replay = replay(for: topics, diff: diff, after: lastEventID)
        // Only a resume reads the log: a first connect holds no reader (one closure less per client).
        let reader: EventClient.LogReader? =
            replay.resumeAfter == nil
            ? nil
            : { @Sendable [weak self] after, maxBytes in
                self?.readLog(after: after, topics: topics, diff: diff, maxBytes: maxBytes)
            }
        let client = EventClient(
            stream: stream, topics: topics, diff: diff, cap: clientCap, window: clientWindow, readLog: reader)
        client.start(replay)
        if isShutDown {
            client.finish()
            return
        }
        fanout.add(client)
        // NB: the action holds the client until the stream ends, then the stream drops it.
        stream.onClose { fanout.remove(client) }
    }

    /// The fan-outs of every loop.
    var fanouts: [EventFanout] { state.withLock { Array($0.fanouts.values) } }

    /// Clients connected now, over every loop.
    var clientCount: Int { state.withLock { $0.fanouts.values.reduce(0) { $0 + $1.count } } }

    /// The id of the newest event, 0 before the first.
    var lastEventID: UInt64 { state.withLock { $0.log.lastID ?? 0 } }

    /// Whether `shutdown()` ran.
    var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// Ends every stream (on each loop) and refuses new clients; for a clean server stop.
    func shutdown() {
        let wasShutDown = state.withLock { state in
            defer { state.isShutDown = true }
            return state.isShutDown
        }
        guard !wasShutDown else { return }
        upstream.withLock { $0.removeAll() }
        // Each fan-out ends its clients when the completion reaches its loop.
        feed.send(completion: .finished)
    }

    private static let retry = SharedBytes(SSE.retry)

    func keep(_ cancellable: AnyCancellable) {
        upstream.withLock { $0.append(cancellable) }
    }

    /// The service's one configuration (`JSONCoding`): compact, as an SSE `data:` must be one line.
    private static func makeEncoder() -> JSONEncoder {
        JSONCoding.makeEncoder()
    }
}
