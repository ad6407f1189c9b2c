import Bitsets
import Foundation
import Patterns
package import StrictJSON

/// json-server 0.17's list query over schemaless items (a user's data file), with json-server v1's operators
/// besides, so that code written for either works:
///
/// - `?field=value`, deep (`?author.name=typicode`, `?tags.0=x`); a repeated key matches any of its values.
/// - `field_ne`, `field_gte`, `field_lte`, `field_like` (PCRE2, case-insensitive, bounded), and
///   `field:op=value` with `lt`, `lte`, `gt`, `gte`, `eq`, `ne`, `in` (comma-separated), `contains`,
///   `startsWith`, `endsWith`.
/// - `q`: case-insensitive substring of any string value at any depth.
/// - `_sort=a,-b&_order=asc,desc`, `_page`/`_limit`, `_start`/`_end` as `ListQuery`; `_embed` and `_expand`
///   are read here and applied by the routes, which know the other collections.
///
/// Values compare as json-server compares them: the item's value as JavaScript's `toString()` gives it,
/// against the parameter's text; `_gte`/`_lte` and the ordering operators compare numbers as numbers when the
/// item's value is a number. A field no item has matches nothing, but the routes leave out a plain `field=value`
/// whose field no item of the collection has, as json-server 0.17 does (`ignoringAbsentFields`).
///
/// ```swift
/// let query = try DocumentQuery(request.query)
/// let page = try query.apply(to: documents) { $0.object }
/// ```
package struct DocumentQuery: Sendable {
    /// How a filter compares an item's value with the parameter's values.
    package enum Operator: String, Sendable, CaseIterable {
        case equal = "eq", notEqual = "ne", atLeast = "gte", atMost = "lte", lessThan = "lt", greaterThan = "gt"
        case like, oneOf = "in", contains, startsWith, endsWith
    }

    /// One filter: the value at `path` compared with `values` by `operator`; any value may match.
    package struct Filter: Sendable {
        /// The parameter as the client wrote it, for messages.
        package var name: String
        /// The field's path (`author.name` → `["author", "name"]`).
        package var path: [String]
        /// The comparison.
        package var `operator`: Operator
        /// The parameter's values (one per repetition).
        package var values: [String]
        /// The `like` values compiled.
        var patterns: [Pattern] = []
        /// The values that are integers written as JavaScript writes them (`3`, not `03` or `+3`).
        var integers: [Int64] = []
    }

    /// The filters, every one of which an item passes.
    package var filters: [Filter] = []
    /// The `q` text, lowercased; nil when there is none.
    package var search: String?
    /// The sort keys, most significant first.
    package var sortKeys: [(path: [String], descending: Bool)] = []
    /// The part answered.
    package var window: ListQuery.Window = .all
    /// The collections `_embed` names (children by `<resource>Id`).
    package var embed: [String] = []
    /// The parents `_expand` names (by `<name>Id`).
    package var expand: [String] = []
    /// json-server v1's `_where`, which replaces the filters when given.
    package var condition: DocumentWhere?
    /// Whether the answer is json-server v1's page envelope (`_page` with `_per_page`).
    package var envelope = false

    /// The parameters that are not filters.
    package static let reservedNames: Set<String> = [
        "q", "_sort", "_order", "_page", "_limit", "_start", "_end", "_embed", "_expand", "_per_page", "_where",
    ]

    /// The parameters json-server takes out before it reads a query: jQuery's cache buster `_`, JSONP's
    /// `callback` (there is no JSONP: a `<script>` on any site could read the local state through it), and
    /// `_delay` (the service applies it) and `_dependent` (a `DELETE`'s).
    package static let ignoredNames: Set<String> = ["_", "callback", "_delay", "_dependent"]

    /// Parses `query`; a 400 names the first parameter it cannot use.
    package init(_ query: QueryParameters) throws(HTTPError) {
        let count = query.pairs.count(where: {
            $0.name == "q" || !(Self.reservedNames.contains($0.name) || Self.ignoredNames.contains($0.name))
        })
        if count > ListQuery.maxFilters {
            throw ListQuery.tooExpensive("a query holds at most \(ListQuery.maxFilters) filters; this one has \(count)")
        }
        for name in query.names where !Self.reservedNames.contains(name) && !Self.ignoredNames.contains(name) {
            var filter = try Self.filter(name, values: query.all(name))
            filter.integers = filter.values.compactMap { value in
                Int64(value).flatMap { String($0) == value ? $0 : nil }
            }
            if filter.operator == .like {
                for pattern in filter.values { filter.patterns.append(try ListQuery.compile(pattern, for: name)) }
            }
            filters.append(filter)
        }
        search = query.all("q").first { !$0.isEmpty }.map(JavaScriptCase.lowercased)
        sortKeys = try Self.sortKeys(query)
        window = try ListQuery.window(query)
        try readVersionOneForms(query)
        embed = Self.names(query.all("_embed"))
        expand = Self.names(query.all("_expand"))
    }

    /// The equality filter (on a field, not an operator) whose values an index can look up, if any: its path
    /// and values.
    package var indexableFilter: (path: [String], values: [String])? {
        filters.first { $0.operator == .equal }.map { ($0.path, $0.values) }
    }

    /// The items that pass, sorted, and the part of them the window selects.
    ///
    /// `object` gives an item's members; it is asked at most once per item, and only when a filter, the
    /// search or a sort key needs them (a stored item parses its bytes for them). `narrowed`: every item
    /// passes `indexableFilter` already (they come from that field's index), so it is not tested again.
    /// `knownValue`: an item's value at a path when the item has it at hand without `object` (its id), or nil.
    ///
    /// Throws `query_too_expensive` when a `like` match reaches its limit or the work outlasts the budget.
    /// `presorted`: the items are in the order of the sort keys already (a sort index's), so they are not
    /// sorted again; `rank`: an item's place in that order (a sort index's), by which the items that pass are
    /// sorted instead of by their keys. `bounded: false` drops the work budget (a sort index built off the
    /// loop). `bytes`: an item's compact JSON, searched for `q` before the item is read (`searchPrefilter`).
    /// `searched`: the items (in their order) that pass the search, found within the budget without reading
    /// each one (`DocumentSearchText`), or nil; they replace `items` and are not searched again. `found`: the
    /// items (in their order) that pass a filter answered from an index, found within the budget, which replace
    /// `items` (the query holds the other filters only).
    package func apply<Item>(
        to items: [Item], narrowed: Bool = false, presorted: Bool = false, rank: ((Item) -> Int)? = nil,
        bounded: Bool = true, object: (Item) -> JSONObject,
        knownValue: (Item, [String]) -> JSONValue? = { _, _ in nil }, bytes: ((Item) -> [UInt8])? = nil,
        searched: ((inout ListQuery.Meter) throws(HTTPError) -> [Item]?)? = nil,
        found: ((inout ListQuery.Meter) throws(HTTPError) -> [Item])? = nil
    ) throws(HTTPError) -> ListQueryPage<Item> {
        var meter = ListQuery.Meter(bounded: bounded)
        var items = try found?(&meter) ?? items
        var search = search
        if search != nil, let found = try searched?(&meter) {
            items = found
            search = nil
        }
        var tested = filters
        if narrowed, let indexed = tested.firstIndex(where: { $0.operator == .equal }) { tested.remove(at: indexed) }
        let paths = presorted || rank != nil ? [] : sortKeys.map(\.path)
        // The sort keys of the items kept, `paths.count` per item in their order (no array per item).
        var keys: [SortValue] = []
        func appendKeys(of item: Item, members: JSONObject?) {
            var members = members
            for path in paths {
                if let known = knownValue(item, path) {
                    keys.append(SortValue(known))
                    continue
                }
                let read = members ?? object(item)
                members = read
                keys.append(SortValue(read.value(at: path)))
            }
        }
        var selected: [Item] = items
        if !tested.isEmpty || search != nil || condition != nil {
            let matchers = tested.map { filter in (filter, filter.patterns.map(PatternMatcher.init)) }
            selected = []
            let prefilter = bytes == nil || search == nil ? nil : searchPrefilter()
            for item in items {
                try meter.check()
                if let prefilter, let bytes, !((try? prefilter.matches(utf8: bytes(item))) ?? true) { continue }
                let members = object(item)
                if try matches(members, matchers, search: search) {
                    selected.append(item)
                    if !paths.isEmpty { appendKeys(of: item, members: members) }
                }
            }
        } else if !paths.isEmpty {
            keys.reserveCapacity(items.count * paths.count)
            for item in items {
                try meter.check()
                appendKeys(of: item, members: nil)
            }
        }
        if !paths.isEmpty {
            let width = paths.count
            var failed: HTTPError?
            let order = selected.indices.sorted { lhs, rhs in
                // NB: a sort cannot be stopped; once the budget is spent its comparisons cost nothing.
                if failed != nil { return lhs < rhs }
                do throws(HTTPError) { try meter.check() } catch { failed = error }
                for position in 0..<width {
                    let order = keys[lhs * width + position].order(keys[rhs * width + position])
                    if order != 0 { return sortKeys[position].descending ? order > 0 : order < 0 }
                }
                return lhs < rhs
            }
            if let failed { throw failed }
            selected = order.map { selected[$0] }
        }
        if let rank, !presorted {
            // NB: places sorted by their rank, not (rank, item) pairs: tens of thousands of items (a broad filter)
            // sort within the budget so in a debug build.
            var ranks: [Int] = []
            ranks.reserveCapacity(selected.count)
            for item in selected {
                try meter.check()
                ranks.append(rank(item))
            }
            selected = Self.ordered(selected, byRank: ranks)
        }
        return pageWindow(count: selected.count).page(of: selected)
    }

    /// Tests items against the filters and search, matchers made once per thread; a failed `like` passes not.
    package func itemTest() -> (JSONObject) -> Bool { { [check = itemCheck()] in (try? check($0)) ?? false } }

    /// `itemTest()`, except that a `like` match past its limit refuses the query, as the whole list's does.
    package func itemCheck() -> (JSONObject) throws(HTTPError) -> Bool {
        let matchers = filters.map { filter in (filter, filter.patterns.map(PatternMatcher.init)) }
        return { object throws(HTTPError) in try matches(object, matchers, search: search) }
    }

    /// Whether some string value of `object`, at any depth, holds the search text (`q`), ignoring case; true
    /// without one.
    package func searchMatches(_ object: JSONObject) -> Bool {
        search.map { Self.contains(.object(object), $0) } ?? true
    }

    private func matches(_ object: JSONObject, _ matchers: [(Filter, [PatternMatcher])], search: String?)
        throws(HTTPError) -> Bool
    {
        if let condition, !condition.matches(object) { return false }
        for (filter, patterns) in matchers where try !Self.passes(object, filter, patterns) { return false }
        if let search, !Self.contains(.object(object), search) { return false }
        return true
    }

    // MARK: Values

    /// The value at `path` in `object` (array elements by their index), or nil.
    package static func value(at path: [String], in object: JSONObject) -> JSONValue? { object.value(at: path) }

    /// The value as JavaScript's `String(value)` gives it (arrays joined by commas).
    package static func text(_ value: JSONValue) -> String { value.javaScriptString }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let number): Double(number)
        case .real(let number): number
        default: nil
        }
    }

    static func passes(_ object: JSONObject, _ filter: Filter, _ patterns: [PatternMatcher]) throws(HTTPError)
        -> Bool
    {
        guard let value = value(at: filter.path, in: object), value != .null else { return false }
        if filter.operator == .equal {
            switch value {
            case .string(let text): return filter.values.contains { $0.hasCodeUnits(of: text) }
            case .integer(let number): return filter.integers.contains(number)
            default: break
            }
        }
        let form = text(value)
        // NB: texts compare by their code units, as JavaScript's `===` and `toLowerCase` do (`hasCodeUnits`,
        // `JavaScriptCase`), not by Swift's canonical equivalence.
        switch filter.operator {
        case .equal: return filter.values.contains { $0.hasCodeUnits(of: form) }
        // NB: a repeated `_ne` excludes each of its values (json-server 0.17 ANDs them), where the other
        // operators' repeats are alternatives.
        case .notEqual: return !filter.values.contains { $0.hasCodeUnits(of: form) }
        case .atLeast: return filter.values.contains { compare(value, $0).map { $0 >= 0 } ?? false }
        case .atMost: return filter.values.contains { compare(value, $0).map { $0 <= 0 } ?? false }
        case .lessThan: return filter.values.contains { compare(value, $0).map { $0 < 0 } ?? false }
        case .greaterThan: return filter.values.contains { compare(value, $0).map { $0 > 0 } ?? false }
        case .oneOf:
            return filter.values.contains { $0.commaParts.contains { $0.hasCodeUnits(of: form) } }
        case .contains:
            if case .array(let elements) = value {
                return filter.values.contains { wanted in elements.contains { text($0).hasCodeUnits(of: wanted) } }
            }
            return filter.values.contains { JavaScriptCase.passes(form, .contains, $0) }
        case .startsWith: return filter.values.contains { JavaScriptCase.passes(form, .startsWith, $0) }
        case .endsWith: return filter.values.contains { JavaScriptCase.passes(form, .endsWith, $0) }
        case .like:
            for pattern in patterns {
                do {
                    if try pattern.matches(form) { return true }
                } catch {
                    throw ListQuery.tooExpensive("the '\(filter.name)' pattern needs too much work; simplify it")
                }
            }
            return false
        }
    }

    /// How the item's `value` orders against the parameter `raw` (JavaScript's relational comparison of a
    /// value with a query string): numerically for a number, by code units for text; nil when they do not
    /// compare (a number against text that is not a number, or an array, object or boolean).
    static func compare(_ value: JSONValue, _ raw: String) -> Int? {
        switch value {
        case .integer, .real:
            guard let parameter = Double(raw.trimmingCharacters(in: .whitespaces)), let item = number(value) else {
                return nil
            }
            return item == parameter ? 0 : (item < parameter ? -1 : 1)
        case .string(let text):
            return ByteText.order(text, raw)
        default: return nil
        }
    }

    /// The elements of a list of values (`"tags": ["a", "b"]`) the search (`q`) keeps: those holding, at any
    /// depth, a string that contains it, ignoring case, as json-server's `q` does; all of them without one.
    /// `value` reads an element (nil: kept out). Within the work budget, as `apply`.
    package func searched<Element>(_ elements: [Element], value: (Element) -> JSONValue?) throws(HTTPError)
        -> [Element]
    {
        guard let search else { return elements }
        var meter = ListQuery.Meter()
        var kept: [Element] = []
        for element in elements {
            try meter.check()
            if let read = value(element), Self.contains(read, search) { kept.append(element) }
        }
        return kept
    }

    // MARK: Parsing

    private static func filter(_ name: String, values: [String]) throws(HTTPError) -> Filter {
        var field = name
        var op = Operator.equal
        if let colon = name.lastIndex(of: ":") {
            let raw = String(name[name.index(after: colon)...])
            guard let parsed = Operator(rawValue: raw) else {
                let known = Operator.allCases.map(\.rawValue).joined(separator: ", ")
                throw ListQuery.invalid("'\(name)' names no operator LiveState knows; the operators are \(known)")
            }
            op = parsed
            field = String(name[..<colon])
        } else {
            for (suffix, suffixOperator) in [
                ("_ne", Operator.notEqual), ("_gte", .atLeast), ("_lte", .atMost),
                ("_like", .like),
            ]
            where name.hasSuffix(suffix) && name.count > suffix.count {
                field = String(name.dropLast(suffix.count))
                op = suffixOperator
                break
            }
        }
        if field.hasPrefix("_") {
            let known = reservedNames.sorted().joined(separator: ", ")
            throw ListQuery.invalid("'\(name)' is not a query parameter LiveState knows; the _ parameters are \(known)")
        }
        let path = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !path.contains(where: \.isEmpty) else { throw ListQuery.invalid("'\(name)' is not a field path") }
        return Filter(name: name, path: path, operator: op, values: values)
    }

    private static func sortKeys(_ query: QueryParameters) throws(HTTPError) -> [(path: [String], descending: Bool)] {
        guard let sort = query["_sort"], !sort.isEmpty else {
            if query["_order"] != nil { throw ListQuery.invalid("'_order' needs '_sort'") }
            return []
        }
        let names = sort.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if names.count > ListQuery.maxSortKeys {
            throw ListQuery.tooExpensive(
                "'_sort' names at most \(ListQuery.maxSortKeys) fields; this one names \(names.count)")
        }
        let orders = query["_order"].map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        var keys: [(path: [String], descending: Bool)] = []
        for (index, raw) in names.enumerated() {
            let minus = raw.hasPrefix("-")
            let field = minus ? String(raw.dropFirst()) : raw
            let path = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !field.isEmpty, !path.contains(where: \.isEmpty) else {
                throw ListQuery.invalid("'_sort' holds an empty field name")
            }
            var descending = minus
            if let orders, !orders.isEmpty {
                let order = (index < orders.count ? orders[index] : (orders.count == 1 ? orders[0] : "asc"))
                    .lowercased()
                switch order {
                case "asc", "": descending = minus
                case "desc": descending = !minus
                default: throw ListQuery.invalid("'_order' must be asc or desc, not '\(order)'")
                }
            }
            keys.append((path, descending))
        }
        return keys
    }

    private static func names(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",").map(String.init) }.filter { !$0.isEmpty }
    }
}
