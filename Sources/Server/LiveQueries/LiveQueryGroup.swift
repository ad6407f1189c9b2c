import HTTP

/// The clients of one live query (the same collection and query text) on one loop: the query's items are
/// kept once for all of them (`LiveRanking`), each change is computed and encoded once, and its frame is
/// shared.
///
/// A query whose window ends (`_limit`) holds its first items up to the window's end plus a margin
/// (`LiveQueryEngine.Limits.windowMargin`); when writes took so many of them that the window may reach past
/// the held ones, the group reads its items anew at the collection's newest version (`refill`) and answers
/// the change up to that version, with its id.
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
    /// The id of the version the group was made (or read anew) at: it shows every version up to it already.
    private(set) var madeAt: UInt64
    /// The query's items at the fan-out's current version.
    var ranking: LiveRanking<Query>
    /// An item's JSON as the query answers it.
    let encode: @Sendable (Query.Item) -> [UInt8]
    /// The `result` frame of the current result, made for the first client that needs it, dropped at each
    /// change.
    var resultFrame: SharedBytes?
    /// The connected clients.
    var clients: [EventClient] = []
    /// Items held past a window's end; nil: every item that passes.
    let margin: Int?

    /// The query's items at the collection's newest version, its id, which of the query's presence fields
    /// some item has then, and with a total, the items are its first in its order
    /// (`LiveCollection.snapshot(for:)`); nil after shutdown.
    typealias Refill = (Query) -> LiveCollection<Query>.Snapshot?

    /// `present`: which of the query's presence fields some item has at version `madeAt`; with a `total`,
    /// `entries` are the first items that pass in the query's order (`LiveCollection.snapshot(for:)`), or
    /// `ranked` when given (with their sort keys).
    init(
        key: String, query: Query, present: Set<String> = [], entries: [LiveEntry<Query.Item>], madeAt: UInt64,
        margin: Int? = nil, total: Int? = nil, ranked: LiveChunks<LiveRanking<Query>.Ranked>? = nil,
        encode: @escaping @Sendable (Query.Item) -> [UInt8]
    ) {
        self.key = key
        self.query = query
        self.present = present
        let reading = query.reading(present: present)
        terms = reading.indexTerms
        self.madeAt = madeAt
        self.margin = margin
        ranking = LiveRanking(reading, entries: entries, margin: margin, total: total, ranked: ranked)
        self.encode = query.encodeItem ?? encode
    }

    /// Whether `version` changes which of this query's fields some item has.
    func readsAnew(_ version: LiveVersion<Query.Item>) -> Bool {
        !version.presence.isEmpty && query.presenceFields.contains { version.presence[$0] != nil }
    }

    // NB: specialized for a data file's queries, as `LiveQueryFanout.apply` is.
    /// Applies `version` (one the group does not show yet): the change of the result, nil when it is the same.
    /// A version that changes which of its fields some item has evaluates the query again over every item.
    /// A bounded group whose held items run short reads them anew with `refill` (then `madeAt` is the
    /// refill's version: the change shows it).
    @_specialize(where Query == DocumentLiveQuery)
    func apply(_ version: LiveVersion<Query.Item>, refill: Refill = { _ in nil }) -> LiveResultChange? {
        if readsAnew(version), let entries = version.entries {
            for (field, isPresent) in version.presence where query.presenceFields.contains(field) {
                if isPresent { present.insert(field) } else { present.remove(field) }
            }
            return changingWindow(refill) { $0 = LiveRanking(self.reading, entries: entries, margin: self.margin) }
        }
        if let replaced = version.replaced {
            return changingWindow(refill) { $0.rebuild(from: replaced) }
        }
        // NB: a bounded ranking a few items from running short may need its items read anew: compared whole.
        if version.changes.count == 1, !ranking.query.window.movesByPages, !ranking.isNearlyShort {
            return ranking.apply(version.changes[0], encode: encode, places: version.places)
        }
        return changingWindow(refill) { $0.place(version.changes, places: version.places) }
    }

    /// The query as it reads with `present`.
    private var reading: Query { query.reading(present: present) }

    /// The change of the result that `edit` makes: the window before and after, compared; a ranking left
    /// short is read anew with `refill` first.
    private func changingWindow(_ refill: Refill, _ edit: (inout LiveRanking<Query>) -> Void) -> LiveResultChange? {
        let old = ranking.result
        let oldKeys = ranking.resultKeys
        edit(&ranking)
        if ranking.isShort, let fresh = refill(query) {
            present = fresh.present
            ranking = LiveRanking(
                reading, entries: fresh.entries, margin: margin, total: fresh.total, ranked: fresh.ranked)
            madeAt = fresh.id
        }
        terms = ranking.query.indexTerms
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

    /// The change a client that saw the result before `changes` (oldest first) needs (.some(nil) when none);
    /// nil when the held items cannot tell that result (a bounded ranking rewound past what it holds).
    func change(since changes: [LiveItemChange<Query.Item>]) -> LiveResultChange?? {
        let earlier = ranking.undoing(changes)
        guard !earlier.isShort else { return nil }
        return .some(Self.change(from: earlier.result, keys: earlier.resultKeys, to: ranking, encode: encode))
    }
}
