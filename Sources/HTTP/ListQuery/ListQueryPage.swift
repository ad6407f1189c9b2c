/// The answer of a `ListQuery`: the selected items, how many passed the filters, and the page if paged.
package struct ListQueryPage<Item: Sendable>: Sendable {
    /// The items of the window, in order.
    package var items: [Item]
    /// How many items passed the filters (before the window): the `X-Total-Count` header.
    package var totalCount: Int
    /// `_page` and `_limit` when the query asked for a page.
    package var page: (number: Int, limit: Int)?

    /// The number of the last page (1 for an empty list).
    package var lastPage: Int? {
        // NB: no `totalCount + limit - 1`, which overflows for `_limit` near Int.max.
        page.map { max(1, totalCount / $0.limit + (totalCount % $0.limit == 0 ? 0 : 1)) }
    }

    /// The RFC 8288 `Link` value for a paged answer: `first`, `prev` (not on the first page), `next` (not on
    /// the last), `last`, each the request's own path and query with `_page` replaced, after `base` (such as
    /// `http://localhost:3000`, so that a front end on another port follows them here; nil: relative).
    ///
    /// ```
    /// </albums?albumId=3&_page=1&_limit=10>; rel="first", </albums?albumId=3&_page=3&_limit=10>; rel="next", …
    /// ```
    package func linkHeader(path: String, query: QueryParameters, base: String? = nil) -> String? {
        guard let page, let lastPage else { return nil }
        var links = [(1, "first")]
        if page.number > 1 { links.append((min(page.number - 1, lastPage), "prev")) }
        if page.number < lastPage { links.append((page.number + 1, "next")) }
        links.append((lastPage, "last"))
        return links.map { number, relation in
            "<\(base ?? "")\(Self.target(path: path, query: query, page: number))>; rel=\"\(relation)\""
        }.joined(separator: ", ")
    }

    /// `X-Total-Count` and, for a page, `Link` (after `base`, as `linkHeader`).
    package func headers(path: String, query: QueryParameters, base: String? = nil) -> HTTPHeaders {
        var headers: HTTPHeaders = ["X-Total-Count": String(totalCount)]
        if let link = linkHeader(path: path, query: query, base: base) { headers["Link"] = link }
        return headers
    }

    /// `path?query` with `_page` set to `page` (kept in place, or appended), every part percent-encoded.
    private static func target(path: String, query: QueryParameters, page: Int) -> String {
        var pairs = query.pairs.filter { $0.name != "_page" }
        let position = query.pairs.firstIndex { $0.name == "_page" } ?? pairs.count
        pairs.insert(("_page", String(page)), at: position)
        let encoded = pairs.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
        return "\(encodePath(path))?\(encoded)"
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    private static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if isUnreserved(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += byte < 16 ? "%0" : "%"
                result += String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }

    /// Percent-encodes a decoded path, keeping its `/` separators.
    private static func encodePath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }.joined(separator: "/")
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}

extension ListQuery.Window {
    /// The window's part of `items` (all of them counted in `totalCount`): the one slicing of every list
    /// query, seed or data file.
    /// (An array's `.all` is itself, not a copy; another list, a `ChunkedList`, is copied only for `.all`.)
    package func page<Items: RandomAccessCollection>(of items: Items) -> ListQueryPage<Items.Element>
    where Items.Index == Int {
        let total = items.count
        switch self {
        case .all:
            return ListQueryPage(items: Array(items), totalCount: total, page: nil)
        case .page(let number, let limit):
            // NB: `_page` and `_limit` go up to Int.max: a product or sum past it means "beyond the end".
            let (offset, overflow) = (number - 1).multipliedReportingOverflow(by: limit)
            let start = overflow ? total : min(offset, total)
            let end = start + min(limit, total - start)
            return ListQueryPage(items: Array(items[start..<end]), totalCount: total, page: (number, limit))
        case .range(let start, let end):
            let lower = min(start, total)
            let upper = max(lower, min(end ?? total, total))
            return ListQueryPage(items: Array(items[lower..<upper]), totalCount: total, page: nil)
        }
    }
}
