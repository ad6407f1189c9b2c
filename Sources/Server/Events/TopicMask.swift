/// The topics a client asked for, one bit per topic's slot: the first 64 slots held inline, so a client of
/// the seeds or of a usual data file costs no heap buffer (a `Set` would); a file of more resources adds
/// words for the rest.
///
/// ```swift
/// let mask = TopicMask([.todos, .albums])
/// mask.contains(.todos)   // true
/// mask.contains(.posts)   // false
/// ```
struct TopicMask: Sendable {
    private var low: UInt64 = 0
    /// The words of slots 64 and up.
    private var high: [UInt64] = []

    init(_ topics: some Sequence<EventTopic>) {
        for topic in topics { insert(topic.slot) }
    }

    /// Whether the mask holds `topic`.
    func contains(_ topic: EventTopic) -> Bool {
        let slot = topic.slot
        if slot < 64 { return low & (1 << UInt64(slot)) != 0 }
        let word = slot / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(slot % 64)) != 0
    }

    private mutating func insert(_ slot: Int) {
        if slot < 64 {
            low |= 1 << UInt64(slot)
            return
        }
        let word = slot / 64 - 1
        if word >= high.count { high += Array(repeating: 0, count: word - high.count + 1) }
        high[word] |= 1 << UInt64(slot % 64)
    }
}
