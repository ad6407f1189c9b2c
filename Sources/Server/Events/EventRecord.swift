import HTTP

/// One emission of a topic's subject, encoded once into the SSE frame every client is sent: the frames are
/// immutable and shared by reference (by the recent-events log, the current values and every client's
/// output), never copied per client.
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
    /// The whole frame with the value as one line of JSON.
    var frame: SharedBytes
    /// For collection topics, the frame with `{"inserted","updated","deleted"}` instead (`?diff=1`).
    var diffFrame: SharedBytes?

    /// Encodes the frame (and the diff frame, when given) from compact JSON (`SSE.event(id:name:json:)`).
    init(id: UInt64, topic: EventTopic, json: [UInt8], diffJSON: [UInt8]? = nil) {
        self.id = id
        self.topic = topic
        self.frame = SharedBytes(SSE.event(id: id, name: topic.rawValue, json: json))
        self.diffFrame = diffJSON.map { SharedBytes(SSE.event(id: id, name: topic.rawValue, json: $0)) }
    }

    /// A record of frames already encoded (events a clean stop saved).
    init(id: UInt64, topic: EventTopic, frame: [UInt8], diffFrame: [UInt8]?) {
        self.id = id
        self.topic = topic
        self.frame = SharedBytes(frame)
        self.diffFrame = diffFrame.map { SharedBytes($0) }
    }

    /// The frame a client in diff mode or not gets.
    func frame(diff: Bool) -> SharedBytes {
        diff ? (diffFrame ?? frame) : frame
    }

    /// The bytes this record keeps alive (both frames): what the recent-events log's byte bound counts.
    var byteCount: Int { frame.count + (diffFrame?.count ?? 0) }
}
