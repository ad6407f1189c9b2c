/// What one loop's live queries of a collection are filed under (`LiveQueryIndex`), as counts the thread
/// that records a version can read: whether the version can touch any of them, so a loop none of whose
/// queries it touches is not woken for it.
///
/// A version touches the loop when it has a query without an equality filter, when it replaced the
/// collection or changed which fields some item has, or when an item it changed (before or after the write)
/// has a value some query is filed under. A loop with no query is never touched.
///
/// ```swift
/// var interest = LiveQueryInterest()
/// interest.insert(LiveIndexTerms(field: "userId", values: ["3"]))
/// interest.touches(version) { item, field in value(of: item, field) }   // true when an item has userId 3
/// ```
struct LiveQueryInterest: Sendable {
    /// field → value → how many queries are filed there.
    private var filed: [String: [String: Int]] = [:]
    /// Queries without an equality filter.
    private var unfiled = 0
    /// Every query counted.
    private var queries = 0

    /// Counts a query filed under `terms` (nil: no equality filter).
    mutating func insert(_ terms: LiveIndexTerms?) {
        queries += 1
        guard let terms else {
            unfiled += 1
            return
        }
        for value in terms.values { filed[terms.field, default: [:]][value, default: 0] += 1 }
    }

    /// Takes out a query counted with `terms`.
    mutating func remove(_ terms: LiveIndexTerms?) {
        queries -= 1
        guard let terms else {
            unfiled -= 1
            return
        }
        for value in terms.values {
            let left = (filed[terms.field]?[value] ?? 1) - 1
            filed[terms.field]?[value] = left > 0 ? left : nil
        }
        if filed[terms.field]?.isEmpty == true { filed[terms.field] = nil }
    }

    /// Forgets every query.
    mutating func removeAll() { self = LiveQueryInterest() }

    /// Whether `version` can change some counted query's result; `value` gives an item's value of a field as
    /// the queries' terms list it (`LiveQuery.indexValue`).
    func touches<Item>(_ version: LiveVersion<Item>, value: (Item, String) -> String?) -> Bool {
        guard queries > 0 else { return false }
        if unfiled > 0 || version.replaced != nil || !version.presence.isEmpty { return true }
        func isFiled(_ entry: LiveEntry<Item>?) -> Bool {
            guard let item = entry?.item else { return false }
            for (field, values) in filed {
                if let itemValue = value(item, field), values[itemValue] != nil { return true }
            }
            return false
        }
        return version.changes.contains { isFiled($0.before) || isFiled($0.after) }
    }
}
