/// A collection's newest versions, oldest first (`LiveCollection`'s history for `Last-Event-ID` and for
/// orders brought up to date): appended at the end, dropped from the front.
///
/// Dropping from the front moves nothing: the dropped versions are let go of and skipped, and the list is
/// compacted only once they are as many as the kept ones, so a full history (256 versions) costs a write
/// the same as an empty one, where an array's `removeFirst` moved every kept version on every write.
///
/// ```swift
/// var history: LiveHistory<Item> = []
/// history.append(version)
/// history.removeFirst(1)
/// let since = history.filter { $0.id > id }
/// ```
struct LiveHistory<Item: Sendable>: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    /// The kept versions from `start` on; the slots before it were dropped (and hold nothing).
    private var versions: [LiveVersion<Item>?] = []
    private var start = 0

    init(arrayLiteral elements: LiveVersion<Item>...) {
        versions = elements
    }

    var startIndex: Int { 0 }
    var endIndex: Int { versions.count - start }

    subscript(position: Int) -> LiveVersion<Item> {
        // NB: a slot at or after `start` always holds its version.
        versions[start + position]!
    }

    /// Adds `version` as the newest.
    mutating func append(_ version: LiveVersion<Item>) {
        versions.append(version)
    }

    /// Drops the `count` oldest versions.
    mutating func removeFirst(_ count: Int) {
        precondition(count >= 0 && count <= self.count, "removes more versions than the history holds")
        for slot in start..<(start + count) { versions[slot] = nil }
        start += count
        guard start >= versions.count - start else { return }
        versions.removeFirst(start)
        start = 0
    }
}
