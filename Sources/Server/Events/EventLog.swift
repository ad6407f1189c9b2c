import HTTP

/// The recent events, oldest first, for `Last-Event-ID` resume: the last `maxCount` events, or fewer when
/// those would keep more than `maxBytes` of frames alive (the byte bound wins; the oldest go first, and
/// the newest always stays).
///
/// Not thread-safe: `EventHub` keeps it under its lock.
///
/// ```swift
/// var log = EventLog(maxCount: 1024, maxBytes: 16 << 20)
/// log.append(record)
/// log.records(after: 41)  // nil when 41 is older than the log (or unknown): send current values instead
/// log.page(after: 41, topics: [.todos], diff: false, maxBytes: 1 << 18)  // the next frames to write
/// ```
struct EventLog {
    /// The contract's bounds: 1024 events, 16 MiB.
    static let defaultCount = 1024
    static let defaultBytes = 16 << 20

    /// At most this many records.
    let maxCount: Int
    /// At most this many bytes of frames (unless the newest record alone is larger).
    let maxBytes: Int
    /// The records from `head` on, in id order; the slots before `head` are nil (a dropped record's frames
    /// are freed at once) until they are compacted away in bulk.
    private var records: [EventRecord?] = []
    private var head = 0
    /// The bytes of the frames held.
    private(set) var byteCount = 0
    /// The id of the newest record that was dropped; nil while none was.
    private(set) var lastEvictedID: UInt64?
    /// The id of the first record ever appended.
    private(set) var firstID: UInt64?
    /// The id of the newest record.
    private(set) var lastID: UInt64?

    /// Creates an empty log.
    init(maxCount: Int = EventLog.defaultCount, maxBytes: Int = EventLog.defaultBytes) {
        precondition(maxCount > 0, "an event log needs room for at least one event")
        self.maxCount = maxCount
        self.maxBytes = maxBytes
    }

    /// How many records the log holds.
    var count: Int { records.count - head }

    /// Appends a record whose id is above every id appended before; drops the oldest while over a bound.
    mutating func append(_ record: EventRecord) {
        precondition(lastID.map { record.id > $0 } ?? true, "event ids must grow")
        if firstID == nil { firstID = record.id }
        lastID = record.id
        records.append(record)
        byteCount += record.byteCount
        while count > maxCount || (byteCount > maxBytes && count > 1) {
            guard let oldest = records[head] else { preconditionFailure("a held slot is empty") }
            byteCount -= oldest.byteCount
            lastEvictedID = oldest.id
            records[head] = nil
            head += 1
        }
        // NB: compacting only once the dead prefix is as long as the live part keeps appends O(1) amortised.
        if head >= 64 && head * 2 >= records.count {
            records.removeFirst(head)
            head = 0
        }
    }

    /// Declares that every event after `id` will be appended (none came before the log's first): a resume
    /// from `id` on is served from the log (a restarted server that makes the events after `id` again).
    mutating func holdsEverything(after id: UInt64) {
        lastEvictedID = max(lastEvictedID ?? id, id)
    }

    /// Every record after `id`, oldest first; nil when the log cannot tell what came after it (the id is
    /// older than the log, from an earlier run, or newer than any id given).
    func records(after id: UInt64) -> [EventRecord]? {
        guard let start = start(after: id) else { return nil }
        return records[start...].compactMap { $0 }
    }

    /// Every record held, oldest first.
    var held: [EventRecord] { records[head...].compactMap { $0 } }

    /// Whether the log holds every event after `id` (a resume can be served from it).
    func holdsEvents(after id: UInt64) -> Bool {
        start(after: id) != nil
    }

    /// A piece of a resume: the next frames after some id, for a client of `topics`.
    struct Page {
        /// The frames, oldest first.
        var frames: [SharedBytes]
        /// Every event up to this id was looked at (sent in `frames`, or not one of the client's topics).
        var lastID: UInt64
        /// Whether `lastID` is the newest event: the client has caught up.
        var isComplete: Bool
    }

    /// The frames after `id` of `topics`, up to about `maxBytes` (at least one frame); nil when the log no
    /// longer holds every event after `id` (a resume that fell behind the log).
    func page(after id: UInt64, topics: Set<EventTopic>, diff: Bool, maxBytes: Int) -> Page? {
        guard let start = start(after: id), let lastID else { return nil }
        var page = Page(frames: [], lastID: id, isComplete: false)
        var bytes = 0
        for case let record? in records[start...] {
            if bytes >= maxBytes { return page }
            page.lastID = record.id
            guard topics.contains(record.topic) else { continue }
            let frame = record.frame(diff: diff)
            page.frames.append(frame)
            bytes += frame.count
        }
        page.lastID = lastID
        page.isComplete = true
        return page
    }

    /// The index of the first record after `id`; nil when some event after `id` is no longer held.
    private func start(after id: UInt64) -> Int? {
        guard let firstID, let lastID, id <= lastID else { return nil }
        // Every id above `floor` that was handed out is still held.
        guard id >= (lastEvictedID ?? firstID) else { return nil }
        var low = head
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if let record = records[middle], record.id <= id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
