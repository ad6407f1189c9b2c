/// One emission of a topic's subject, encoded once into the SSE frame every client is sent.
///
/// ```swift
/// let record = EventRecord(id: 41, topic: .todos, json: Array(#"[]"#.utf8))
/// String(decoding: record.frame, as: UTF8.self)  // "id: 41\nevent: todos\ndata: []\n\n"
/// ```
struct EventRecord: Sendable {
    /// The id, growing across all topics.
    var id: UInt64
    /// The topic the value belongs to.
    var topic: EventTopic
    /// The whole frame with the value as one line of JSON.
    var frame: [UInt8]
    /// For collection topics, the frame with `{"inserted","updated","deleted"}` instead (`?diff=1`).
    var diffFrame: [UInt8]?

    /// Encodes the frame (and the diff frame, when given) from one-line JSON.
    init(id: UInt64, topic: EventTopic, json: [UInt8], diffJSON: [UInt8]? = nil) {
        self.id = id
        self.topic = topic
        self.frame = SSE.event(id: id, name: topic.rawValue, data: json)
        self.diffFrame = diffJSON.map { SSE.event(id: id, name: topic.rawValue, data: $0) }
    }

    /// The frame a client in diff mode or not gets.
    func frame(diff: Bool) -> [UInt8] {
        diff ? (diffFrame ?? frame) : frame
    }
}
