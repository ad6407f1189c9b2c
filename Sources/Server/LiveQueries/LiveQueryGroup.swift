import HTTP

/// The clients of one live query (the same collection and query text) on one loop: the query's items are
/// kept once for all of them (`LiveRanking`), each change is computed and encoded once, and its frame is
/// shared.
///
/// Used on its loop only (`LiveQueryFanout`).
final class LiveQueryGroup<Query: LiveQuery> {
    /// The query's text, as the group's key in its fan-out.
    let key: String
    /// The query as asked; `ranking.query` is it as it reads now (`LiveQuery.reading(present:)`).
    let query: Query
    /// Which of the query's presence fields some item has, as of the group's version.
    private(set) var present: Set<String>
    /// The equality filter it is indexed under.
    private(set) var terms: LiveIndexTerms?
    /// The id of the version the group was made at: it shows every version up to it already.
    let madeAt: UInt64
    /// The query's items at the fan-out's current version.
    var ranking: LiveRanking<Query>
    /// An item's JSON as the query answers it.
    let encode: @Sendable (Query.Item) -> [UInt8]
    /// The `result` frame of the current result, made for the first client that needs it, dropped at each
    /// change.
    var resultFrame: SharedBytes?
    /// The connected clients.
    var clients: [EventClient] = []

    /// `present`: which of the query's presence fields some item has at version `madeAt`
    /// (`LiveCollection.snapshot(for:)`).
    init(
        key: String, query: Query, present: Set<String> = [], entries: [LiveEntry<Query.Item>], madeAt: UInt64,
        encode: @escaping @Sendable (Query.Item) -> [UInt8]
    ) {
        self.key = key
        self.query = query
        self.present = present
        let reading = query.reading(present: present)
        terms = reading.indexTerms
        self.madeAt = madeAt
        ranking = LiveRanking(reading, entries: entries)
        self.encode = query.encodeItem ?? encode
    }

    /// Whether `version` changes which of this query's fields some item has.
    func readsAnew(_ version: LiveVersion<Query.Item>) -> Bool {
        !version.presence.isEmpty && query.presenceFields.contains { version.presence[$0] != nil }
    }

    /// Applies `version` (one the group does not show yet): the change of the result, nil when it is the same.
    /// A version that changes which of its fields some item has evaluates the query again over every item.
    func apply(_ version: LiveVersion<Query.Item>) -> LiveResultChange? {
        if readsAnew(version), let entries = version.entries {
            for (field, isPresent) in version.presence where query.presenceFields.contains(field) {
                if isPresent { present.insert(field) } else { present.remove(field) }
            }
            let reading = query.reading(present: present)
            terms = reading.indexTerms
            return changingWindow { $0 = LiveRanking(reading, entries: entries) }
        }
        if let replaced = version.replaced {
            return changingWindow { $0.rebuild(from: replaced) }
        }
        if version.changes.count == 1, !ranking.query.window.movesByPages {
            return ranking.apply(version.changes[0], encode: encode)
        }
        return changingWindow { $0.place(version.changes) }
    }

    /// The change of the result that `edit` makes: the window before and after, compared.
    private func changingWindow(_ edit: (inout LiveRanking<Query>) -> Void) -> LiveResultChange? {
        let old = ranking.result
        let oldKeys = ranking.resultKeys
        edit(&ranking)
        return Self.change(from: old, keys: oldKeys, to: ranking, encode: encode)
    }

    /// The change from `old` (with its keys) to `ranking`'s result; nil when nothing changed.
    static func change(
        from old: LiveResult<Query.Item>, keys: [String], to ranking: LiveRanking<Query>,
        encode: (Query.Item) -> [UInt8]
    ) -> LiveResultChange? {
        let change = LiveResultChange(
            from: old, keys: keys, to: ranking.result, newKeys: ranking.resultKeys, encode: encode)
        return change.isEmpty && old.total == change.total ? nil : change
    }

    /// The change a client that saw the result before `changes` (oldest first) needs; nil when none.
    func change(since changes: [LiveItemChange<Query.Item>]) -> LiveResultChange? {
        let earlier = ranking.undoing(changes)
        return Self.change(from: earlier.result, keys: earlier.resultKeys, to: ranking, encode: encode)
    }
}
