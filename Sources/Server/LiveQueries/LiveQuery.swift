import HTTP

/// A query the live-query engine follows: which items it holds, in which order, which part of them, and the
/// equality filter it is indexed under. The engine knows nothing else of a collection's query language, so
/// any collection (the seed lists with `ListQuery`, schemaless JSON files with `DocumentQuery`) plugs in by
/// conforming its query to this protocol.
///
/// The result of a query over a list is the items that pass `itemFilter()`, stably sorted by their
/// `sortKey(of:)` (`order`; ties keep the list's order), cut to `window`; `total` counts them before the
/// window. `evaluate(_:)` computes exactly that; the engine keeps it up to date from each changed item
/// (`LiveRanking`), and a query type's tests check it against the plain `GET`'s own implementation.
///
/// ```swift
/// struct ListLiveQuery<Item: ListQueryItem>: LiveQuery { let query: ListQuery; ... }
/// let result = live.evaluate(todos)   // LiveResult(items: [...], total: 12)
/// ```
protocol LiveQuery: Sendable {
    /// The collection's item.
    associatedtype Item: Sendable & Equatable
    /// What an item is sorted by, read once per item version.
    associatedtype SortKey: Sendable

    /// A test of single items, made on the thread that uses it (it may hold per-thread state such as a
    /// regular expression's match data).
    func itemFilter() -> (Item) -> Bool

    /// Whether `itemFilter()` can refuse an item; false: every item passes, so they are counted, not tested
    /// (the default: true).
    var filtersItems: Bool { get }

    /// The values of `item` the query sorts by.
    func sortKey(of item: Item) -> SortKey

    /// -1, 0 or 1: whether an item with `lhs` sorts before, with, or after one with `rhs` (0: the query's
    /// sort ties them, or it has none).
    func order(_ lhs: SortKey, _ rhs: SortKey) -> Int

    /// The part of the sorted items answered.
    var window: LiveWindow { get }

    /// An equality filter every item of the result passes: the field and the values (as `indexValue` gives
    /// them), any of which the item's field must equal. nil when the query has none: then every write
    /// of the collection is checked against it.
    var indexTerms: LiveIndexTerms? { get }

    /// The value of `field` in `item` as `indexTerms` names values; nil when the item lacks the field.
    static func indexValue(of item: Item, field: String) -> String?

    /// An item's JSON as this query's plain `GET` answers it, when it differs from the collection's
    /// (`_embed`, `_expand`); nil: the collection's encoding.
    var encodeItem: (@Sendable (Item) -> [UInt8])? { get }

    /// The fields whose presence in the collection changes what the query reads: a parameter json-server
    /// ignores while no item has its field (`?t=1733460000000`). Empty: none (the default).
    var presenceFields: [String] { get }

    /// The query as it reads while exactly `present` of its `presenceFields` are held by some item of the
    /// collection (the default: itself).
    func reading(present: Set<String>) -> Self

    /// Whether `item` has a value, `null` included, at `field` (one of some query's `presenceFields`).
    static func item(_ item: Item, has field: String) -> Bool

    /// This query's sort alone, and a key naming it: a query with no filter and no window whose
    /// `sortKey(of:)` and `order` are this one's. The collection keeps the order of each such sort its live
    /// queries use up to date from the changes (`LiveOrders`). nil (the default): no kept order serves the
    /// query (it has no sort: its order is the collection's own).
    var ordering: (key: String, query: Self)? { get }
}

extension LiveQuery {
    var filtersItems: Bool { true }
    var encodeItem: (@Sendable (Item) -> [UInt8])? { nil }
    var presenceFields: [String] { [] }
    func reading(present _: Set<String>) -> Self { self }
    static func item(_: Item, has _: String) -> Bool { false }
    var ordering: (key: String, query: Self)? { nil }
}

/// The field and values a query is indexed under (`?completed=false` → `completed`, `["false"]`).
struct LiveIndexTerms: Sendable, Equatable {
    /// The field.
    var field: String
    /// Any of these values passes.
    var values: [String]
}

/// The part of a query's sorted items that it answers.
enum LiveWindow: Sendable, Equatable {
    /// Every item.
    case all
    /// Items `start..<end`, zero-based, clamped to the list (`end` nil: to the end).
    case range(start: Int, end: Int?)
    /// Page `number` (1-based) of `limit` items, or the last page when there are fewer pages (json-server
    /// v1's page envelope): a write can move it by a whole page.
    case pageWithin(number: Int, limit: Int)

    /// The live form of a list query's window.
    init(_ window: ListQuery.Window) {
        switch window {
        case .all: self = .all
        case .page(let number, let limit): self = .page(number, limit: limit)
        case .range(let start, let end): self = .range(start: start, end: end)
        }
    }

    /// The `range` of page `number` (1-based) of `limit` items.
    static func page(_ number: Int, limit: Int) -> LiveWindow {
        // NB: a product or sum past Int.max means "beyond the end".
        let (start, overflow) = (number - 1).multipliedReportingOverflow(by: limit)
        if overflow { return .range(start: Int.max, end: Int.max) }
        return .range(start: start, end: start.addingReportingOverflow(limit).partialValue)
    }

    /// The positions answered of `count` sorted items: `lower..<upper`.
    func bounds(count: Int) -> (lower: Int, upper: Int) {
        switch self {
        case .all: return (0, count)
        case .range(let start, let end):
            let lower = min(start, count)
            return (lower, max(lower, min(end ?? count, count)))
        case .pageWithin(let number, let limit):
            let pages = max(1, count / limit + (count % limit == 0 ? 0 : 1))
            return Self.page(min(number, pages), limit: limit).bounds(count: count)
        }
    }

    /// The position the window ends before whatever the count (`_limit`, `_end`, `_page`; v1's page envelope
    /// shows the last page when there are fewer pages, which ends before its own page does); nil when it
    /// reaches the last item (no window, or `_start` alone).
    var end: Int? {
        switch self {
        case .all: return nil
        case .range(_, let end): return end
        case .pageWithin(let number, let limit):
            // NB: a product past Int.max ends nowhere the count can reach.
            let (end, overflow) = number.multipliedReportingOverflow(by: limit)
            return overflow ? Int.max : end
        }
    }

    /// Whether one write can move the window's edges by more than one place.
    var movesByPages: Bool {
        if case .pageWithin = self { return true }
        return false
    }
}

/// A query's result: the items of its window, in order, and how many items passed before the window.
struct LiveResult<Item: Sendable>: Sendable {
    /// The items of the window.
    var items: [Item]
    /// The count before the window (`X-Total-Count`).
    var total: Int
}

extension LiveQuery {
    /// Filters, stably sorts and cuts `items` by the query's parts: the reference the engine's kept results
    /// equal.
    func evaluate(_ items: [Item]) -> LiveResult<Item> {
        let passes = itemFilter()
        let selected = items.filter(passes).map { (item: $0, key: sortKey(of: $0)) }
        // NB: Swift's sort is stable.
        let sorted = selected.sorted { order($0.key, $1.key) < 0 }.map(\.item)
        let (lower, upper) = window.bounds(count: sorted.count)
        return LiveResult(items: Array(sorted[lower..<upper]), total: sorted.count)
    }
}
