import Foundation
import Patterns

/// json-server's list query language, parsed once per request and applied to any `ListQueryItem` list:
/// the one implementation behind every list route.
///
/// - `?field=value` equality; repeating a field means any of the values (`?albumId=1&albumId=2`);
///   `field_ne`, `field_gte`, `field_lte` and `field_like` (a case-insensitive regular expression) as json-server.
/// - `?q=text`: case-insensitive substring of any text field.
/// - `?_sort=a,b&_order=asc,desc` (or `_sort=-field`), stable.
/// - `?_page=N&_limit=M` (1-based, `_limit` 10 by default), `?_limit=M`, `?_start=&_end=` (zero-based, end
///   excluded) or `?_start=&_limit=`.
///
/// An unknown field, a malformed number or an unknown `_order` is a 400 naming the parameter, never an empty
/// list. A query past one of the bounds of `ListQuery+Budget.swift` is a 400 `query_too_expensive`.
///
/// ```swift
/// let query = try ListQuery(request.query, for: AlbumModel.self)
/// let page = query.apply(to: albums)     // page.items, page.totalCount, page.linkHeader(...)
/// ```
package struct ListQuery: Sendable, Equatable {
    /// How a field is compared with the parameter's values.
    package enum Comparison: String, Sendable, CaseIterable {
        case equal = ""
        case notEqual = "_ne"
        case atLeast = "_gte"
        case atMost = "_lte"
        case like = "_like"
    }

    /// One filter: `field` compared with `values` (any of them for `equal`, all of them otherwise).
    package struct Condition: Sendable, Equatable {
        package var field: String
        package var comparison: Comparison
        package var values: [String]
        /// The `_like` values compiled (empty for other comparisons).
        var patterns: [Pattern] = []

        package static func == (lhs: Condition, rhs: Condition) -> Bool {
            lhs.field == rhs.field && lhs.comparison == rhs.comparison && lhs.values == rhs.values
        }
    }

    /// One sort key.
    package struct SortKey: Sendable, Equatable {
        package var field: String
        package var descending: Bool
    }

    /// Which part of the filtered, sorted list is answered.
    package enum Window: Sendable, Equatable {
        /// Everything.
        case all
        /// Page `number` (1-based) of `limit` items.
        case page(number: Int, limit: Int)
        /// Items `start..<end` (`end` nil: to the end), clamped to the list.
        case range(start: Int, end: Int?)
    }

    /// The filters, all of which an item passes.
    package var conditions: [Condition] = []
    /// The `q` texts, each of which some text field contains.
    package var searches: [String] = []
    /// The sort keys, most significant first.
    package var sortKeys: [SortKey] = []
    /// The part answered.
    package var window: Window = .all

    /// The parameters that are not field names.
    package static let reservedNames: Set<String> = ["q", "_sort", "_order", "_page", "_limit", "_start", "_end"]

    /// The json-server page size when `_page` comes without `_limit`.
    package static let defaultPageLimit = 10

    /// Parses `query` for items of type `Item`; a 400 names the first parameter it cannot use.
    package init<Item: ListQueryItem>(_ query: QueryParameters, for _: Item.Type) throws(HTTPError) {
        let filters = query.pairs.count(where: { $0.name == "q" || !Self.reservedNames.contains($0.name) })
        if filters > Self.maxFilters {
            throw Self.tooExpensive("a query holds at most \(Self.maxFilters) filters; this one has \(filters)")
        }
        let fields = Set(Item.queryFields)
        for name in query.names where !Self.reservedNames.contains(name) {
            let (field, comparison) = Self.split(name, fields: fields)
            guard let field else { throw Self.unknown(name, fields: Item.queryFields) }
            let values = query.all(name)
            var condition = Condition(field: field, comparison: comparison, values: values)
            if comparison == .like {
                for pattern in values { condition.patterns.append(try Self.compile(pattern, for: name)) }
            }
            conditions.append(condition)
        }
        searches = query.all("q").filter { !$0.isEmpty }
        sortKeys = try Self.sortKeys(query, fields: fields)
        window = try Self.window(query)
    }

    /// The items that pass, in order, and the part of them the window selects.
    ///
    /// Throws `query_too_expensive` when a `_like` match reaches its limit or filtering outlasts `workBudget`.
    /// `items` is an array or another list read by index (the task list's `ChunkedList`): a query with a
    /// window alone copies only the window's items.
    package func apply<Items: RandomAccessCollection>(
        to items: Items
    ) throws(HTTPError) -> ListQueryPage<Items.Element> where Items.Element: ListQueryItem, Items.Index == Int {
        guard !conditions.isEmpty || !searches.isEmpty || !sortKeys.isEmpty else { return window.page(of: items) }
        var meter = Meter()
        var selected = !conditions.isEmpty || !searches.isEmpty ? try filtered(items, &meter) : Array(items)
        if !sortKeys.isEmpty { selected = try sorted(selected, &meter) }
        return window.page(of: selected)
    }

    /// The items that pass every condition and search, within `workBudget`.
    private func filtered<Item: ListQueryItem>(
        _ items: some Sequence<Item>, _ meter: inout Meter
    ) throws(HTTPError) -> [Item] {
        let matchers = conditions.map(Matcher.init)
        let textFields = Item.queryFields
        var selected: [Item] = []
        items: for item in items {
            try meter.check()
            for matcher in matchers where try !matcher.matches(item) { continue items }
            for text in searches {
                let found = textFields.contains { field in
                    guard case .text(let value)? = item.queryValue(of: field) else { return false }
                    return value.range(of: text, options: [.caseInsensitive]) != nil
                }
                if !found { continue items }
            }
            selected.append(item)
        }
        return selected
    }

    /// A stable sort by `sortKeys` (ties keep the list's order), within `workBudget`.
    private func sorted<Item: ListQueryItem>(_ items: [Item], _ meter: inout Meter) throws(HTTPError) -> [Item] {
        let keyed = items.enumerated().map { index, item in
            (index: index, item: item, keys: sortKeys.map { item.queryValue(of: $0.field) })
        }
        do {
            return try keyed.sorted { lhs, rhs in
                try meter.check()
                for (position, key) in sortKeys.enumerated() {
                    guard let left = lhs.keys[position], let right = rhs.keys[position] else { continue }
                    if left.sorts(before: right) { return !key.descending }
                    if right.sorts(before: left) { return key.descending }
                }
                return lhs.index < rhs.index
            }.map(\.item)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw Self.tooExpensive("the sort failed")
        }
    }

    /// `albumId_gte` → (`albumId`, `.atLeast`); a plain field → `.equal`; nil field when it names none.
    private static func split(_ name: String, fields: Set<String>) -> (String?, Comparison) {
        if fields.contains(name) { return (name, .equal) }
        for comparison in Comparison.allCases where comparison != .equal && name.hasSuffix(comparison.rawValue) {
            let field = String(name.dropLast(comparison.rawValue.count))
            if fields.contains(field) { return (field, comparison) }
        }
        return (nil, .equal)
    }

    private static func sortKeys(_ query: QueryParameters, fields: Set<String>) throws(HTTPError) -> [SortKey] {
        guard let sort = query["_sort"], !sort.isEmpty else {
            if query["_order"] != nil { throw invalid("'_order' needs '_sort'") }
            return []
        }
        let names = sort.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if names.count > maxSortKeys {
            throw tooExpensive("'_sort' names at most \(maxSortKeys) fields; this one names \(names.count)")
        }
        let orders = query["_order"].map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        if let orders, orders.count != names.count, orders.count != 1 {
            throw invalid("'_order' must name one order, or one per '_sort' field")
        }
        var keys: [SortKey] = []
        for (index, raw) in names.enumerated() {
            let descendingPrefix = raw.hasPrefix("-")
            let field = descendingPrefix ? String(raw.dropFirst()) : raw
            guard fields.contains(field) else {
                throw invalid(
                    "'_sort' names unknown field '\(field)'; the fields are \(fields.sorted().joined(separator: ", "))")
            }
            var descending = descendingPrefix
            if let orders {
                switch orders.count == 1 ? orders[0].lowercased() : orders[index].lowercased() {
                case "asc": descending = descendingPrefix
                case "desc": descending = !descendingPrefix
                case let other: throw invalid("'_order' must be asc or desc, not '\(other)'")
                }
            }
            keys.append(SortKey(field: field, descending: descending))
        }
        return keys
    }

    static func window(_ query: QueryParameters) throws(HTTPError) -> Window {
        let limit = try number(query, "_limit", minimum: 0)
        if let page = try number(query, "_page", minimum: 1) {
            if query["_start"] != nil || query["_end"] != nil {
                throw invalid("'_page' cannot be combined with '_start' or '_end'")
            }
            let limit = limit ?? defaultPageLimit
            if limit < 1 { throw invalid("'_limit' must be at least 1 with '_page'") }
            return .page(number: page, limit: limit)
        }
        let start = try number(query, "_start", minimum: 0)
        let end = try number(query, "_end", minimum: 0)
        if let end {
            if limit != nil { throw invalid("'_end' cannot be combined with '_limit'") }
            return .range(start: start ?? 0, end: end)
        }
        if let limit { return .range(start: start ?? 0, end: (start ?? 0).addingReportingOverflow(limit).partialValue) }
        if let start { return .range(start: start, end: nil) }
        return .all
    }

    private static func number(_ query: QueryParameters, _ name: String, minimum: Int) throws(HTTPError) -> Int? {
        guard let raw = query[name] else { return nil }
        let parsed = Int(raw)
        guard let value = parsed, value >= minimum else {
            let digits = raw.hasPrefix("+") ? raw.dropFirst() : Substring(raw)
            // NB: only digits that `Int` could not hold are too large; `0` for `_page` is too small.
            if parsed == nil, !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isWholeNumber }) {
                throw invalid("'\(name)' is too large: the largest number it takes is \(Int.max), not '\(raw)'")
            }
            throw invalid("'\(name)' must be a whole number of at least \(minimum), not '\(raw)'")
        }
        return value
    }

    /// The 400 for a parameter that is neither a field nor one of the `_` parameters.
    private static func unknown(_ name: String, fields: [String]) -> HTTPError {
        let known = "the _ parameters are _sort, _order, _page, _limit, _start and _end, and q searches the text"
        let fieldList = "the fields are \(fields.joined(separator: ", "))"
        guard name.hasPrefix("_") else { return invalid("unknown field '\(name)'; \(fieldList)") }
        // json-server's relations (`_embed`, `_expand`) have no counterpart here: the seeds' models are flat.
        let relation = name == "_embed" || name == "_expand" ? " (LiveState's resources have no relations)" : ""
        return invalid("'\(name)' is not a query parameter LiveState knows\(relation); \(known); \(fieldList)")
    }

    static func invalid(_ message: String) -> HTTPError {
        HTTPError.badRequest(message, code: "invalid_query")
    }
}

/// A condition ready to test items: one PCRE2 matcher per `_like` pattern, for this request only.
private struct Matcher {
    let condition: ListQuery.Condition
    let patterns: [PatternMatcher]

    init(_ condition: ListQuery.Condition) {
        self.condition = condition
        patterns = condition.patterns.map(PatternMatcher.init)
    }

    func matches(_ item: some ListQueryItem) throws(HTTPError) -> Bool {
        guard let value = item.queryValue(of: condition.field) else { return false }
        let values = condition.values
        switch condition.comparison {
        case .equal: return values.contains(value.queryForm)
        case .notEqual: return !values.contains(value.queryForm)
        case .atLeast: return values.allSatisfy { value.compare(toQuery: $0) != .before }
        case .atMost: return values.allSatisfy { value.compare(toQuery: $0) != .after }
        case .like:
            let form = value.queryForm
            for pattern in patterns {
                do {
                    if try !pattern.matches(form) { return false }
                } catch {
                    throw ListQuery.tooExpensive(matching: condition, error)
                }
            }
            return true
        }
    }
}
