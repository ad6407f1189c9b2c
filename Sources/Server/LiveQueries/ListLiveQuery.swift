import HTTP

/// The list query language (`ListQuery`) as a live query over one kind of `ListQueryItem`: the seed
/// collections' live queries (todos, posts, albums).
///
/// Its parts (filter, order, window) are `ListQuery`'s own, the code the plain `GET` answers with, so a
/// live result and a fresh `GET` agree item for item. It is indexed under its first `?field=value` filter.
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

    func sortKey(of item: Item) -> Item { item }

    func order(_ lhs: Item, _ rhs: Item) -> Int {
        query.orders(lhs, before: rhs).map { $0 ? -1 : 1 } ?? 0
    }

    var window: LiveWindow { LiveWindow(query.window) }

    var indexTerms: LiveIndexTerms? {
        query.equalityFilters.first.map { LiveIndexTerms(field: $0.field, values: $0.values) }
    }

    static func indexValue(of item: Item, field: String) -> String? {
        item.queryValue(of: field)?.queryForm
    }
}
