import HTTP

/// The list query language (`ListQuery`) as a live query over one kind of `ListQueryItem`: the seed
/// collections' live queries (todos, posts, albums).
///
/// Its result is `ListQuery.apply(to:)`, the very code the plain `GET` answers with, so a live result and
/// a fresh `GET` agree item for item. It is indexed under its first `?field=value` filter.
///
/// ```swift
/// let query = ListLiveQuery<Todo>(try ListQuery(request.query, for: Todo.self))
/// ```
struct ListLiveQuery<Item: ListQueryItem & Equatable>: LiveQuery {
    /// The parsed query.
    let query: ListQuery

    init(_ query: ListQuery) {
        self.query = query
    }

    func itemFilter() -> (Item) -> Bool {
        let test = query.itemTest()
        return { test.matches($0) }
    }

    func orders(_ lhs: Item, before rhs: Item) -> Bool? {
        query.orders(lhs, before: rhs)
    }

    var window: LiveWindow { LiveWindow(query.window) }

    var indexTerms: LiveIndexTerms? {
        query.equalityFilters.first.map { LiveIndexTerms(field: $0.field, values: $0.values) }
    }

    static func indexValue(of item: Item, field: String) -> String? {
        item.queryValue(of: field)?.queryForm
    }

    func evaluate(_ items: [Item]) -> LiveResult<Item>? {
        guard let page = try? query.apply(to: items) else { return nil }
        return LiveResult(items: page.items, total: page.totalCount)
    }
}
