import HTTP

/// One `/events` connection: what it asked for, what it was sent, and its cap on unsent output.
///
/// Used only on the loop of its stream (`EventFanout` guarantees it).
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

    /// The connection.
    let stream: any HTTPStream
    /// The topics the client asked for.
    let topics: Set<EventTopic>
    /// Whether collection topics are sent as changes (`?diff=1`).
    let diff: Bool
    /// Cut the client off once more live bytes than this wait unsent.
    let cap: Int

    /// The newest event id the client's output reflects: later deliveries at or below it are duplicates.
    private(set) var lastSentID: UInt64 = 0
    /// Bytes of the replay on connect (never counted against the cap).
    private var replayBytes = 0
    /// Every byte written to the stream so far.
    private var writtenBytes = 0
    /// Whether the client was cut off or its stream ended.
    private(set) var isFinished = false

    /// Creates the client of an open stream.
    init(stream: any HTTPStream, topics: Set<EventTopic>, diff: Bool, cap: Int = EventClient.defaultCap) {
        self.stream = stream
        self.topics = topics
        self.diff = diff
        self.cap = cap
    }

    /// Writes the replay (the `retry:` line, then the current values or the missed events).
    func start(_ replay: EventReplay) {
        stream.write(replay.bytes)
        replayBytes = replay.bytes.count
        writtenBytes = replay.bytes.count
        lastSentID = replay.lastID
    }

    /// Live output written but not yet handed to the kernel: what the cap limits.
    ///
    /// Output leaves in order, so whatever is sent counts against the replay first.
    var unsentLiveBytes: Int {
        let pending = stream.pendingBytes
        let sent = writtenBytes - pending
        let unsentReplay = max(0, replayBytes - sent)
        return max(0, pending - unsentReplay)
    }

    /// Sends `record` if the client wants it and has not had it; false once the client is cut off.
    @discardableResult
    func deliver(_ record: EventRecord) -> Bool {
        guard !isFinished else { return false }
        guard record.id > lastSentID else { return true }
        lastSentID = record.id
        guard topics.contains(record.topic) else { return true }
        return send(record.frame(diff: diff))
    }

    /// Sends the `: keep-alive` comment; false once the client is cut off.
    @discardableResult
    func heartbeat() -> Bool {
        guard !isFinished else { return false }
        return send(SSE.keepAlive)
    }

    /// Ends the stream (shutdown, or the cap).
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        stream.close()
    }

    private func send(_ bytes: [UInt8]) -> Bool {
        if stream.isClosed {
            isFinished = true
            return false
        }
        // NB: the check comes before the write, so the frame being written never counts.
        if unsentLiveBytes > cap {
            // Cut off: drop the connection and what it has not read, so no memory stays held for it.
            isFinished = true
            stream.abort()
            return false
        }
        stream.write(bytes)
        writtenBytes += bytes.count
        return true
    }
}
