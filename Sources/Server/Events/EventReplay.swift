import HTTP

/// What a client is sent when it connects, before any live event: the `retry:` line, then either the
/// current values of its topics (a first connect) or, read from the recent-events log as the client
/// reads, the events it missed (a resume).
struct EventReplay: Sendable {
    /// The frames to write first (shared, not copied).
    var frames: [SharedBytes]
    /// Live events at or below this id are already reflected in `frames` (or come from the log).
    var lastID: UInt64
    /// Set when `Last-Event-ID` is honoured: the events after this id are read from the log, page by page
    /// as the client's output drains (nil: current values were sent instead).
    var resumeAfter: UInt64?
    /// Whether `frames` count toward the client's cap on unsent output, as live events do: a live query's
    /// first result, as large as the query's result, where `/events`' current values are bounded.
    var countsTowardCap = false

    /// Whether `Last-Event-ID` was honoured.
    var resumed: Bool { resumeAfter != nil }
}
