/// The event hub's wait for entries delivered out of journal order (the seeds deliver each view model's
/// entries on a thread of its own, `SeedDeliveries`): an emission whose journal entry is above `delivered`
/// waits until every entry up to its own is delivered, then comes out in journal order, so the log, the
/// event ids and `Last-Event-ID` keep the order of the commits. An emission of a topic that has one waiting
/// waits behind it, so each topic's events keep the order its view model emitted them in.
///
/// ```swift
/// var order = EventReorder(delivered: 9)
/// order.hold(.init(topic: .todos, journaled: 11 * EventIDSource.journalBlock, …))  // true: entry 10 is not in
/// order.advance(to: 11)  // the todos event, then any other waiting up to entry 11, by entry
/// ```
struct EventReorder {
    /// An emission kept back, encoded.
    struct Held {
        var topic: EventTopic
        /// The event id its journal entry gives it (nil: a local one when it comes out).
        var journaled: UInt64?
        var data: EventData
        var diff: [UInt8]?
        var recorded: @Sendable (UInt64) -> Void
        /// The journal entry it waits for: its own, or a later one its topic's earlier emission waits for.
        fileprivate var entry: Int64 = 0

        init(
            topic: EventTopic, journaled: UInt64?, data: EventData, diff: [UInt8]?,
            recorded: @escaping @Sendable (UInt64) -> Void
        ) {
            (self.topic, self.journaled, self.data, self.diff, self.recorded) = (topic, journaled, data, diff, recorded)
        }
    }

    /// Every journal entry up to this one is in its view model.
    private(set) var delivered: Int64
    /// In the order they were emitted.
    private var held: [Held] = []

    init(delivered: Int64) {
        self.delivered = delivered
    }

    /// Keeps `emission` back when its entry (or an emission of its topic before it) waits for a delivery;
    /// false: it is published now.
    mutating func hold(_ emission: Held) -> Bool {
        var emission = emission
        let own = emission.journaled.map { Int64($0 / EventIDSource.journalBlock) } ?? 0
        let before = held.last { $0.topic == emission.topic }?.entry ?? 0
        emission.entry = max(own, before)
        guard emission.entry > delivered else { return false }
        held.append(emission)
        return true
    }

    /// Every entry up to `entry` is delivered: the emissions that waited for them, by entry (each topic's in
    /// the order emitted), to publish now.
    mutating func advance(to entry: Int64) -> [Held] {
        guard entry > delivered else { return [] }
        delivered = entry
        let ready = held.filter { $0.entry <= entry }
        guard !ready.isEmpty else { return [] }
        held.removeAll { $0.entry <= entry }
        // NB: a stable sort: a topic's emissions keep their order, as their entries never go down.
        return ready.enumerated().sorted { ($0.element.entry, $0.offset) < ($1.element.entry, $1.offset) }
            .map(\.element)
    }
}
