import Foundation
import Patterns

/// The per-item parts of a `ListQuery`, for code that follows a query's result as single items change (live
/// queries): whether one item passes, how two items order, and the equality filters an index can file the
/// query under. `apply(to:)` stays the one way to answer a whole list.
///
/// ```swift
/// let test = query.itemTest()
/// test.matches(todo)                         // every condition and search holds
/// query.orders(todo, before: other)          // true, false, or nil for a tie of every sort key
/// query.equalityFilters                      // [("completed", ["false"])]
/// ```
extension ListQuery {
    /// The filters of `?field=value` (any of the values matches), in the query's order: an item outside
    /// every one of them cannot be in the result.
    package var equalityFilters: [(field: String, values: [String])] {
        conditions.filter { $0.comparison == .equal }.map { ($0.field, $0.values) }
    }

    /// A test of single items against this query's conditions and searches, with its `_like` patterns
    /// prepared once (for the calling thread: PCRE2's match data is not shared).
    package func itemTest() -> ListQueryItemTest {
        ListQueryItemTest(query: self)
    }

    /// Whether `lhs` sorts before `rhs` by the sort keys: nil when every key ties (then the list's own
    /// order decides, as the stable sort of `apply(to:)` keeps it).
    package func orders<Item: ListQueryItem>(_ lhs: Item, before rhs: Item) -> Bool? {
        for key in sortKeys {
            guard let left = lhs.queryValue(of: key.field), let right = rhs.queryValue(of: key.field) else { continue }
            if left.sorts(before: right) { return !key.descending }
            if right.sorts(before: left) { return key.descending }
        }
        return nil
    }
}

/// Tests single items against one `ListQuery`'s conditions and searches, as `apply(to:)` filters them. A
/// `_like` match that reaches its limit counts as no match (the whole-list answer refuses the query then).
///
/// Not `Sendable`: its PCRE2 matchers belong to one thread.
package struct ListQueryItemTest {
    private let query: ListQuery
    private let patterns: [[PatternMatcher]]

    init(query: ListQuery) {
        self.query = query
        patterns = query.conditions.map { $0.patterns.map(PatternMatcher.init) }
    }

    /// Whether `item` passes every condition and every `q` search.
    package func matches(_ item: some ListQueryItem) -> Bool {
        for (condition, matchers) in zip(query.conditions, patterns) {
            guard let value = item.queryValue(of: condition.field) else { return false }
            let values = condition.values
            switch condition.comparison {
            case .equal: if !values.contains(value.queryForm) { return false }
            case .notEqual: if values.contains(value.queryForm) { return false }
            case .atLeast: if !values.allSatisfy({ value.compare(toQuery: $0) != .before }) { return false }
            case .atMost: if !values.allSatisfy({ value.compare(toQuery: $0) != .after }) { return false }
            case .like:
                let form = value.queryForm
                for matcher in matchers where (try? matcher.matches(form)) != true { return false }
            }
        }
        for text in query.searches {
            let found = type(of: item).queryFields.contains { field in
                guard case .text(let value)? = item.queryValue(of: field) else { return false }
                return value.range(of: text, options: [.caseInsensitive]) != nil
            }
            if !found { return false }
        }
        return true
    }
}
