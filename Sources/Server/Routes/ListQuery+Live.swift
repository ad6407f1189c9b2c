import HTTP

extension ListQuery {
    /// The answer of a list route that is also live: with `Accept: text/event-stream`, the query's result
    /// as a stream (`LiveCollection.reply`), after the query was parsed and run once as the plain `GET`
    /// runs it, so a query the `GET` refuses is refused the same way before the stream opens; otherwise the
    /// plain answer (`reply(_:cached:items:)`).
    static func reply<Item: ListQueryItem & Equatable, Items: RandomAccessCollection<Item>>(
        _ request: Request, cached snapshot: EncodedSnapshot<some Encodable & Sendable, some Sendable>,
        live: LiveCollection<ListLiveQuery<Item>>,
        items: () -> Items
    ) throws -> Reply where Items.Index == Int {
        guard LiveQueryEngine.wantsStream(request) else { return try reply(request, cached: snapshot, items: items) }
        let query = try ListQuery(request.query, for: Item.self)
        _ = try query.apply(to: items())
        return try live.reply(request, query: ListLiveQuery(query))
    }
}
