/// The recent events, oldest first, for `Last-Event-ID` resume: a ring of fixed capacity.
///
/// Not thread-safe: `EventHub` keeps it under its lock.
///
/// ```swift
/// var log = EventLog(capacity: 1024)
/// log.append(record)
/// log.records(after: 41)  // nil when 41 is older than the ring (or unknown): send current values instead
/// ```
struct EventLog {
    /// How many records the ring holds.
    let capacity: Int
    private var ring: [EventRecord] = []
    /// Index in `ring` of the oldest record once the ring is full.
    private var head = 0
    /// The id of the newest record that fell out of the ring; nil while none did.
    private(set) var lastEvictedID: UInt64?
    /// The id of the first record ever appended.
    private(set) var firstID: UInt64?
    /// The id of the newest record.
    private(set) var lastID: UInt64?

    /// Creates an empty log keeping the last `capacity` records.
    init(capacity: Int) {
        precondition(capacity > 0, "an event log needs room for at least one event")
        self.capacity = capacity
        ring.reserveCapacity(capacity)
    }

    /// How many records the log holds.
    var count: Int { ring.count }

    /// Appends a record whose id is above every id appended before; drops the oldest when full.
    mutating func append(_ record: EventRecord) {
        precondition(lastID.map { record.id > $0 } ?? true, "event ids must grow")
        if firstID == nil { firstID = record.id }
        lastID = record.id
        if ring.count < capacity {
            ring.append(record)
        } else {
            lastEvictedID = ring[head].id
            ring[head] = record
            head = (head + 1) % capacity
        }
    }

    /// Every record after `id`, oldest first; nil when the log cannot tell what came after it (the id is
    /// older than the ring, from an earlier run, or newer than any id given).
    func records(after id: UInt64) -> [EventRecord]? {
        guard let firstID, let lastID, id <= lastID else { return nil }
        // Every id above `floor` that was handed out is still in the ring.
        let floor = lastEvictedID ?? firstID
        guard id >= floor else { return nil }
        var result: [EventRecord] = []
        for offset in 0..<ring.count {
            let record = ring[(head + offset) % ring.count]
            if record.id > id { result.append(record) }
        }
        return result
    }
}
