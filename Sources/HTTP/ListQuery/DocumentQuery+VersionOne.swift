extension DocumentQuery {
    /// json-server v1's forms: `_where` (which replaces the filters, as in v1) and `_page` with `_per_page`
    /// (v1's page envelope; `_per_page` alone, as in v1, changes nothing).
    mutating func readVersionOneForms(_ query: QueryParameters) throws(HTTPError) {
        if let text = query["_where"] {
            condition = try DocumentWhere(parsing: text)
            filters = []
        }
        guard let raw = query["_per_page"], let page = query["_page"] else { return }
        guard let perPage = Int(raw), perPage >= 1 else {
            throw ListQuery.invalid("'_per_page' must be a whole number of at least 1, not '\(raw.prefix(40))'")
        }
        guard let number = Int(page), number >= 1 else {
            throw ListQuery.invalid("'_page' must be a whole number of at least 1, not '\(page.prefix(40))'")
        }
        if query["_start"] != nil || query["_end"] != nil || query["_limit"] != nil {
            throw ListQuery.invalid("'_per_page' cannot be combined with '_limit', '_start' or '_end'")
        }
        window = .page(number: number, limit: perPage)
        envelope = true
    }

    /// The window's part of `places` (the places of the items that pass, in the answer's order), as `apply`
    /// takes it of the items themselves.
    package func page(of places: [Int]) -> ListQueryPage<Int> {
        pageWindow(count: places.count).page(of: places)
    }

    /// The window for `count` items: v1's envelope answers its last page for a page past it, as v1 does.
    func pageWindow(count: Int) -> ListQuery.Window {
        guard envelope, case .page(let number, let limit) = window else { return window }
        let pages = max(1, count / limit + (count % limit == 0 ? 0 : 1))
        return .page(number: min(number, pages), limit: limit)
    }
}

extension ListQueryPage {
    /// The same page of other items: `transform` of each.
    package func map<Other: Sendable>(_ transform: (Item) -> Other) -> ListQueryPage<Other> {
        ListQueryPage<Other>(items: items.map(transform), totalCount: totalCount, page: page)
    }

    /// json-server v1's page envelope around `data` (the page's items as a JSON array):
    /// `{"first":1,"prev":null,"next":2,"last":5,"pages":5,"items":42,"data":[…]}`.
    package func versionOneEnvelope(data: [UInt8]) -> [UInt8] {
        let number = page?.number ?? 1
        let last = lastPage ?? 1
        let prev = number > 1 ? String(number - 1) : "null"
        let next = number < last ? String(number + 1) : "null"
        var out = Array(
            #"{"first":1,"prev":\#(prev),"next":\#(next),"last":\#(last),"pages":\#(last),"items":\#(totalCount),"data":"#
                .utf8)
        out.append(contentsOf: data)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
