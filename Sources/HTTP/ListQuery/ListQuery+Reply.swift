extension ListQuery {
    /// The answer of a list route: the cached snapshot for a bare `GET` (no query at all), else the query
    /// applied to `items()`, with `X-Total-Count` and, for a page, `Link`.
    ///
    /// ```swift
    /// get("/albums") { request in try ListQuery.reply(request, cached: snapshot) { albums.albumSubject.value } }
    /// ```
    package static func reply<Items: RandomAccessCollection>(
        _ request: Request,
        cached snapshot: EncodedSnapshot<some Encodable & Sendable, some Sendable>? = nil,
        items: () -> Items
    ) throws -> Reply where Items.Element: ListQueryItem, Items.Index == Int {
        if request.query.isEmpty, let response = snapshot?.response { return .response(response) }
        let page = try ListQuery(request.query, for: Items.Element.self).apply(to: items())
        return try .json(page.items, headers: page.headers(path: request.path, query: request.query))
    }
}
