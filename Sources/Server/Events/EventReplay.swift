/// What a client is sent when it connects: the `retry:` line, then the current values of its topics or
/// the events it missed, and the id up to which that output reflects the hub.
struct EventReplay: Sendable {
    /// The bytes to write before any live event.
    var bytes: [UInt8]
    /// Live events at or below this id are already reflected in `bytes`.
    var lastID: UInt64
    /// Whether `Last-Event-ID` was honoured (false: current values were sent instead).
    var resumed: Bool
}
