import HTTP

/// The clients of one live query (the same collection and query text) on one loop: the query's result is
/// kept once for all of them, each change is computed and encoded once, and its frame is shared.
///
/// Used on its loop only (`LiveQueryFanout`).
final class LiveQueryGroup<Query: LiveQuery> {
    /// The query's text, as the group's key in its fan-out.
    let key: String
    /// The query.
    let query: Query
    /// The equality filter it is indexed under.
    let terms: LiveIndexTerms?
    /// Whether one item passes the query's filters.
    let passes: (Query.Item) -> Bool
    /// The result at the fan-out's current version.
    var result: LiveResult<Query.Item>
    /// The keys of `result.items`.
    var keys: [String]
    /// The `result` frame of `result`, made for the first client that needs it, dropped at each change.
    var resultFrame: SharedBytes?
    /// The connected clients.
    var clients: [EventClient] = []

    init(key: String, query: Query, result: LiveResult<Query.Item>, keys: [String]) {
        self.key = key
        self.query = query
        terms = query.indexTerms
        passes = query.itemFilter()
        self.result = result
        self.keys = keys
    }

    /// Whether one of `changes` passes the query before or after the write: if none does, the result
    /// cannot have changed.
    func isTouched(by changes: [LiveItemChange<Query.Item>]) -> Bool {
        changes.contains { change in
            change.before.map(passes) == true || change.after.map(passes) == true
        }
    }
}
