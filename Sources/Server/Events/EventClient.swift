import HTTP

/// One `/events` connection: what it asked for, what it was sent, and its cap on unsent output.
///
/// Used only on the loop of its stream (`EventFanout` guarantees it).
///
/// Memory: every frame is shared (`SharedBytes`), so a client holds references, never copies. What it
/// writes is fed as its output drains: the replay (current values, or the missed events read page by
/// page from the hub's log) is written only while less than `window` bytes wait in its output, and live
/// events go behind it in a queue. A client that stops reading therefore holds at most `window` bytes of
/// replay in flight plus `cap` of live events (the one being written not counted), and is cut off beyond.
///
/// ```swift
/// let client = EventClient(stream: stream, topics: [.todos], diff: false)
/// client.start(hub.replay(for: client.topics, diff: false, after: nil))
/// client.deliver(record)  // false once the client was cut off
/// ```
final class EventClient: @unchecked Sendable {
    // NB: @unchecked because every member is used on the stream's loop only.

    /// The default cap on live output waiting unsent for one client: 1 MiB.
    static let defaultCap = 1 << 20
    /// Replay output kept in flight per client: more is written once the output drains below it.
    static let defaultWindow = 256 << 10

    /// Reads the next page of a resume from the hub's log: the frames after an id, up to some bytes; nil
    /// once the log no longer holds them all.
    typealias LogReader = @Sendable (_ after: UInt64, _ maxBytes: Int) -> EventLog.Page?

    /// The connection.
    let stream: any HTTPStream
    /// The topics the client asked for.
    private let topics: TopicMask
    /// Whether collection topics are sent as changes (`?diff=1`).
    let diff: Bool
    /// Cut the client off once more live bytes than this wait unsent.
    let cap: Int
    /// Write more only while less than this waits in the output.
    let window: Int
    private let readLog: LogReader?

    /// The newest event id the client's output reflects: later deliveries at or below it are duplicates.
    private(set) var lastSentID: UInt64 = 0
    /// While resuming: the id after which the log is read next (live deliveries wait in the log meanwhile).
    private var resumeCursor: UInt64?
    /// Frames not yet written, oldest first from `queueHead`; `isReplay` for the replay of current values.
    private var queue: [(frame: SharedBytes, isReplay: Bool)] = []
    private var queueHead = 0
    /// Bytes of live frames in `queue`.
    private var queuedLiveBytes = 0
    /// Bytes of replay written (never counted against the cap).
    private var replayBytes = 0
    /// Every byte written to the stream so far.
    private var writtenBytes = 0
    /// The client's index in its fan-out's list, -1 when not in one (`EventFanout` keeps it).
    var fanoutSlot = -1
    /// Whether the client was cut off or its stream ended.
    private(set) var isFinished = false

    /// Creates the client of an open stream; `readLog` serves a resume.
    init(
        stream: any HTTPStream, topics: Set<EventTopic>, diff: Bool, cap: Int = EventClient.defaultCap,
        window: Int = EventClient.defaultWindow, readLog: LogReader? = nil
    ) {
        self.stream = stream
        self.topics = TopicMask(topics)
        self.diff = diff
        self.cap = cap
        self.window = window
        self.readLog = readLog
    }

    /// Whether the client asked for `topic`.
    func wants(_ topic: EventTopic) -> Bool { topics.contains(topic) }

    /// Starts the replay (the `retry:` line, then the current values or the missed events), written as the
    /// client reads.
    func start(_ replay: EventReplay) {
        lastSentID = replay.lastID
        resumeCursor = replay.resumeAfter
        queue = replay.frames.map { ($0, !replay.countsTowardCap) }
        if replay.countsTowardCap { queuedLiveBytes = replay.frames.reduce(0) { $0 + $1.count } }
        // NB: unowned, not weak: a weak reference gives every client a side table; the stream drops the
        // action when it ends (`finish`), and the client outlives its stream's callbacks.
        stream.onDrain { [unowned self] in pump() }
        pump()
    }

    /// Live output written or queued but not yet handed to the kernel: what the cap limits.
    ///
    /// Output leaves in order and the replay is written before any live event, so whatever is sent counts
    /// against the replay first.
    var unsentLiveBytes: Int {
        let pending = stream.pendingBytes
        let sent = writtenBytes - pending
        let unsentReplay = max(0, replayBytes - sent)
        return max(0, pending - unsentReplay) + queuedLiveBytes
    }

    /// Sends `record` if the client wants it and has not had it; false once the client is cut off.
    @discardableResult
    func deliver(_ record: EventRecord) -> Bool {
        deliver(CollectionOfOne(record))
    }

    /// Sends the `records` (in id order) the client wants and has not had, together: one chunk when the
    /// output is free; false once the client is cut off.
    @discardableResult
    func deliver(_ records: some Sequence<EventRecord>) -> Bool {
        guard !isFinished else { return false }
        // NB: while resuming, the log holds these events too; the next page reads them in order.
        guard resumeCursor == nil else { return true }
        var queued = false
        for record in records where record.id > lastSentID {
            lastSentID = record.id
            guard topics.contains(record.topic) else { continue }
            guard enqueue(record.frame(diff: diff)) else { return false }
            queued = true
        }
        if queued { pump() }
        return !isFinished
    }

    /// Sends frames made for this client alone (a live query's changes), in order, those with an id it
    /// already has left out, as one write when the output is free; false once the client is cut off.
    @discardableResult
    func deliver(frames: [(frame: SharedBytes, id: UInt64)]) -> Bool {
        guard !isFinished else { return false }
        var queued = false
        for (frame, id) in frames where id > lastSentID {
            lastSentID = id
            guard enqueue(frame) else { return false }
            queued = true
        }
        if queued { pump() }
        return !isFinished
    }

    /// Sends the `: keep-alive` comment (unless output is waiting anyway); false once the client is cut off.
    @discardableResult
    func heartbeat() -> Bool {
        guard !isFinished else { return false }
        guard resumeCursor == nil, queueHead == queue.count else { return !closedByPeer() }
        guard enqueue(Self.keepAlive) else { return false }
        pump()
        return !isFinished
    }

    /// Writes what waits, then `frame`, and ends the stream: what the client follows is gone (a resource
    /// removed from the data file).
    func end(with frame: SharedBytes) {
        guard !isFinished, !closedByPeer() else { return }
        while queueHead < queue.count { writeQueued() }
        resumeCursor = nil
        write([frame], replay: false)
        finish()
    }

    /// Ends the stream (shutdown, or the cap).
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        dropQueue()
        stream.close()
    }

    private static let keepAlive = SharedBytes(SSE.keepAlive)

    /// Queues a live frame (`pump` writes it); false if the client left or is over its cap (then cut off).
    private func enqueue(_ frame: SharedBytes) -> Bool {
        if closedByPeer() { return false }
        // NB: the check comes before the frame joins, so the frame being written never counts.
        if unsentLiveBytes > cap {
            cutOff()
            return false
        }
        queue.append((frame, false))
        queuedLiveBytes += frame.count
        return true
    }

    /// Writes what waits (queued frames, then the next page of a resume) while the output holds less than
    /// `window`; runs again each time the output drains.
    private func pump() {
        while !isFinished, !closedByPeer(), stream.pendingBytes < window {
            if queueHead < queue.count {
                writeQueued()
            } else if let cursor = resumeCursor {
                guard let readLog, let page = readLog(cursor, window) else {
                    // The log moved past what this client has read: too slow, like a client over its cap.
                    cutOff()
                    return
                }
                resumeCursor = page.isComplete ? nil : page.lastID
                lastSentID = max(lastSentID, page.lastID)
                write(page.frames, replay: true)
            } else {
                return
            }
        }
    }

    /// Writes queued frames, up to `window` bytes (at least one), as one chunk.
    private func writeQueued() {
        var frames: [SharedBytes] = []
        var bytes = 0
        var replay = 0
        while queueHead < queue.count, bytes < window {
            let (frame, isReplay) = queue[queueHead]
            // One chunk is all replay or all live, so the byte counts stay exact.
            if !frames.isEmpty && isReplay != (replay > 0) { break }
            frames.append(frame)
            bytes += frame.count
            if isReplay { replay += frame.count } else { queuedLiveBytes -= frame.count }
            queueHead += 1
        }
        if queueHead == queue.count {
            // NB: no capacity is kept: an idle client holds no queue buffer (the next event allocates one).
            queue = []
            queueHead = 0
        }
        write(frames, replay: replay > 0)
    }

    private func write(_ frames: [SharedBytes], replay: Bool) {
        guard !frames.isEmpty else { return }
        let bytes = frames.reduce(0) { $0 + $1.count }
        stream.write(frames)
        writtenBytes += bytes
        if replay { replayBytes += bytes }
    }

    /// Whether the stream ended under the client (the peer left); marks the client finished.
    private func closedByPeer() -> Bool {
        guard stream.isClosed else { return false }
        isFinished = true
        dropQueue()
        return true
    }

    /// Drops the connection and what it has not read, so no memory stays held for it.
    private func cutOff() {
        isFinished = true
        resumeCursor = nil
        dropQueue()
        stream.abort()
    }

    private func dropQueue() {
        queue = []
        queueHead = 0
        queuedLiveBytes = 0
    }
}
