import Domain
import HTTP
import StrictJSON
import Synchronization

/// json-server's query language over a data file's items (`DocumentQuery`) as a live query: the live
/// queries of a file's collections. Its result is `DocumentQuery.apply(to:)`, the code the plain `GET`
/// answers with; it is indexed under its first equality filter (`?userId=3`).
///
/// ```swift
/// let query = DocumentLiveQuery(try DocumentQuery(request.query))
/// ```
struct DocumentLiveQuery: LiveQuery {
    /// The parsed query.
    let query: DocumentQuery

    func itemFilter() -> (StoredDocument) -> Bool {
        let test = query.itemTest()
        return { test($0.object) }
    }

    func orders(_ lhs: StoredDocument, before rhs: StoredDocument) -> Bool? {
        // NB: the engine re-evaluates through `evaluate`, which sorts as the plain GET does.
        nil
    }

    var window: LiveWindow { LiveWindow(query.window) }

    var indexTerms: LiveIndexTerms? {
        query.indexableFilter.map { LiveIndexTerms(field: $0.path.joined(separator: "."), values: $0.values) }
    }

    static func indexValue(of item: StoredDocument, field: String) -> String? {
        guard let value = item.object.value(at: field.split(separator: ".").map(String.init)), value != .null else {
            return nil
        }
        return value.javaScriptString
    }

    func evaluate(_ items: [StoredDocument]) -> LiveResult<StoredDocument>? {
        try? result(of: items)
    }

    /// The result over `items`, or why the query cannot be answered (`query_too_expensive`).
    func result(of items: [StoredDocument]) throws(HTTPError) -> LiveResult<StoredDocument> {
        let page = try query.apply(to: items, object: { $0.object })
        return LiveResult(items: page.items, total: page.totalCount)
    }
}

/// A data file collection's live queries: its `LiveCollection`, fed with the collection's versions.
///
/// NB: a version is the whole ordered list; making it costs a pass over the collection per write. While
/// no live query is open on the server the versions are not made (a write on a 50,000-item file would pay
/// for nobody); the first live query then publishes the current list, with the id of the last change it
/// shows, before it opens.
final class DocumentLiveFeed: Sendable {
    /// The live queries of the collection.
    let collection: LiveCollection<DocumentLiveQuery>
    private let resource: DocumentResource
    private let stale = Mutex(true)

    /// Registers `resource`'s live queries with `engine`.
    init(_ resource: DocumentResource, engine: LiveQueryEngine) {
        self.resource = resource
        collection = engine.register(
            resource.name, query: DocumentLiveQuery.self,
            key: { String(decoding: ($0.id?.value ?? .null).compactBytes, as: UTF8.self) },
            encode: { $0.bytes })
    }

    /// A change took event `id` (called under the hub's lock, in id order).
    func changed(id: UInt64) {
        guard collection.engine.openCount > 0 else {
            stale.withLock { $0 = true }
            return
        }
        collection.publish(id: id, items: resource.items.documents)
        stale.withLock { $0 = false }
    }

    /// Ends every live query of the collection with `frame` last: it was removed from the data file.
    func end(with frame: SharedBytes) { collection.end(with: frame) }

    /// The answer to a list `GET` with `Accept: text/event-stream`.
    func reply(_ request: Request, query: DocumentQuery) throws(HTTPError) -> Reply {
        let live = DocumentLiveQuery(query: query)
        // NB: evaluated once here, so a query that cannot be answered is refused before the stream opens (a
        // live query reads the whole collection, where a plain GET may read a field's index: on a collection
        // whose items are kept as bytes alone a filtered live query can outlast the budget the GET meets).
        _ = try live.result(of: resource.items.documents)
        let wasStale = stale.withLock { stale in
            defer { stale = false }
            return stale
        }
        if wasStale {
            // NB: read after `stale` is taken: a write meanwhile sets it again and is published by the next one.
            let (items, seq) = resource.itemsAndSeq
            collection.publish(id: UInt64(max(1, seq)) * EventIDSource.journalBlock, items: items.documents)
        }
        return try collection.reply(request, query: live)
    }
}
