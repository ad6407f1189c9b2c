import HTTP

/// One emission of a topic's subject, encoded once into the SSE frame every client is sent: the frames are
/// immutable and shared by reference (by the recent-events log, the current values and every client's
/// output), never copied per client. A collection's whole list may come as data to write later
/// (`EventData.later`): its frame is made when a client first reads it, once, so a write that no
/// `/events` client reads whole costs no encoding of the list.
///
/// ```swift
/// let record = EventRecord(id: 41, topic: .todos, json: Array(#"[]"#.utf8))
/// String(decoding: record.frame.bytes, as: UTF8.self)  // "id: 41\nevent: todos\ndata: []\n\n"
/// ```
struct EventRecord: Sendable {
    /// The id, growing across all topics.
    var id: UInt64
    /// The topic the value belongs to.
    var topic: EventTopic
    /// For collection topics, the frame with `{"inserted","updated","deleted"}` instead (`?diff=1`).
    var diffFrame: SharedBytes?
    private let whole: Whole

    /// The whole frame: made, or made when first read (`EventFrame`).
    private enum Whole: Sendable {
        case made(SharedBytes)
        case later(EventFrame)
    }

    /// Encodes the frame (and the diff frame, when given) from compact JSON (`SSE.event(id:name:json:)`).
    init(id: UInt64, topic: EventTopic, json: [UInt8], diffJSON: [UInt8]? = nil) {
        self.init(id: id, topic: topic, data: .json(json), diffJSON: diffJSON)
    }

    /// The frame of `data`, made now from JSON at hand or when first read from `later` data (the diff frame,
    /// which is small, now).
    init(id: UInt64, topic: EventTopic, data: EventData, diffJSON: [UInt8]?) {
        self.id = id
        self.topic = topic
        switch data {
        case .json(let json):
            whole = .made(SharedBytes(SSE.event(id: id, name: topic.rawValue, json: json)))
        case .later(let size, let write):
            whole = .later(EventFrame(id: id, name: topic.rawValue, jsonCount: size, write: write))
        }
        self.diffFrame = diffJSON.map { SharedBytes(SSE.event(id: id, name: topic.rawValue, json: $0)) }
    }

    /// A record of frames already encoded (events a clean stop saved).
    init(id: UInt64, topic: EventTopic, frame: [UInt8], diffFrame: [UInt8]?) {
        self.id = id
        self.topic = topic
        self.whole = .made(SharedBytes(frame))
        self.diffFrame = diffFrame.map { SharedBytes($0) }
    }

    /// The whole frame with the value as one line of JSON (made on first read when it was given `later`).
    var frame: SharedBytes {
        switch whole {
        case .made(let frame): frame
        case .later(let frame): frame.bytes
        }
    }

    /// Whether the whole frame is made (false: given `later`, and no client read it yet).
    var isWholeMade: Bool {
        switch whole {
        case .made: true
        case .later(let frame): frame.isMade
        }
    }

    /// The frame a client in diff mode or not gets.
    func frame(diff: Bool) -> SharedBytes {
        if diff, let diffFrame { return diffFrame }
        return frame
    }

    /// The bytes this record keeps alive (both frames, the whole one counted as made): what the
    /// recent-events log's byte bound counts.
    var byteCount: Int {
        let wholeCount =
            switch whole {
            case .made(let frame): frame.count
            case .later(let frame): frame.count
            }
        return wholeCount + (diffFrame?.count ?? 0)
    }
}
