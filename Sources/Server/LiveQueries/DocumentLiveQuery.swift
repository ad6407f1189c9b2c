import Domain
import Foundation
import HTTP
import StrictJSON
import Synchronization

/// json-server's query language over a data file's items (`DocumentQuery`) as a live query: the live
/// queries of a file's collections. Its parts are the plain `GET`'s own (`DocumentQuery.itemTest`,
/// `sortKey`/`order`, the window), so its result is what `DocumentQuery.apply(to:)` answers; it is indexed
/// under its first equality filter (`?userId=3`), and its items carry `_embed`/`_expand` as the `GET`'s do.
/// A plain `field=value` filter is left out while no item has the field, as the `GET` leaves it out
/// (`presenceFields`, `IgnoredParameters`), at every version.
///
/// ```swift
/// let query = DocumentLiveQuery(query: try DocumentQuery(request.query), idField: "id")
/// ```
struct DocumentLiveQuery: LiveQuery {
    /// The parsed query, as it reads now (without the filters on fields no item has).
    private(set) var query: DocumentQuery
    /// The parsed query with every filter.
    private let asked: DocumentQuery
    /// The field holding an item's id (`--id`).
    var idField = "id"
    /// An item's JSON with its relations (`_embed`, `_expand`); nil: its stored bytes.
    var encodeItem: (@Sendable (StoredDocument) -> [UInt8])?

    /// `query` with every filter; it reads as `reading(present:)` says.
    init(query: DocumentQuery, idField: String = "id") {
        self.query = query
        asked = query
        self.idField = idField
    }

    var presenceFields: [String] { asked.ignorableFields.map { $0.joined(separator: ".") } }

    func reading(present: Set<String>) -> DocumentLiveQuery {
        var read = self
        read.query = asked
        _ = read.query.ignoreAbsentFields { present.contains($0.joined(separator: ".")) }
        return read
    }

    static func item(_ item: StoredDocument, has field: String) -> Bool {
        IgnoredParameters.someItem(
            of: [item], has: field.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    var filtersItems: Bool { !query.filters.isEmpty || query.search != nil || query.condition != nil }

    func itemFilter() -> (StoredDocument) -> Bool {
        let test = query.itemTest()
        return { test($0.object) }
    }

    func sortKey(of item: StoredDocument) -> DocumentSortKey {
        // NB: no sort reads no member: an item kept as its bytes is not parsed for it.
        query.sortKeys.isEmpty ? .unsorted : query.sortKey(of: item.object, id: item.id?.value, idField: idField)
    }

    func order(_ lhs: DocumentSortKey, _ rhs: DocumentSortKey) -> Int { query.order(lhs, rhs) }

    var ordering: (key: String, query: DocumentLiveQuery)? {
        guard !query.sortKeys.isEmpty else { return nil }
        var sorting = DocumentQuery.sortingOnly(query)
        sorting.window = .all
        sorting.embed = []
        sorting.expand = []
        return (Self.sortName(query), DocumentLiveQuery(query: sorting, idField: idField))
    }

    /// A name of `query`'s sort keys: two queries sort alike when their names are equal.
    static func sortName(_ query: DocumentQuery) -> String {
        query.sortKeys.map { ($0.descending ? "-" : "+") + $0.path.joined(separator: "\u{0}") }
            .joined(separator: "\u{1}")
    }

    var window: LiveWindow {
        if query.envelope, case .page(let number, let limit) = query.window {
            return .pageWithin(number: number, limit: limit)
        }
        return LiveWindow(query.window)
    }

    var indexTerms: LiveIndexTerms? {
        query.indexableFilter.map { LiveIndexTerms(field: $0.path.joined(separator: "."), values: $0.values) }
    }

    static func indexValue(of item: StoredDocument, field: String) -> String? {
        // NB: looked up for each changed item and filed field on every write: a field without a dot (most
        // filters) is read without splitting its path into new strings.
        let value =
            field.utf8.contains(UInt8(ascii: "."))
            ? item.object.value(at: field.split(separator: ".").map(String.init)) : item.object[field]
        guard let value, value != .null else { return nil }
        return value.javaScriptString
    }
}

/// A data file collection's live queries: its `LiveCollection`, fed with each applied change.
///
/// A change is one edit of the collection's live items (`LiveMirror`): the item put or the id removed, a
/// lookup by key. The live items are read from the resource when the first live query of the collection
/// opens, with the id of the last change they show, and dropped again at the first write after the last one
/// closed, so a file nobody follows live pays nothing per write. A sorted live query of a large collection
/// takes its first items from the sort index the plain `GET` answers from (`sortIndex`).
final class DocumentLiveFeed: Sendable {
    /// The live queries of the collection.
    let collection: LiveCollection<DocumentLiveQuery>
    /// The collection's kept sort orders, shared with its `GET` route.
    let sortIndex = DocumentSortIndex()
    private let resource: DocumentResource
    /// The sort keys whose order is being built on a worker for a live query.
    private let building = Mutex<Set<String>>([])

    /// Registers `resource`'s live queries with `engine`.
    init(_ resource: DocumentResource, engine: LiveQueryEngine) {
        self.resource = resource
        let sortIndex = sortIndex
        collection = engine.register(
            resource.name, query: DocumentLiveQuery.self, key: { Self.key(of: $0.id?.value ?? .null) },
            encode: { $0.bytes },
            source: {
                let (items, seq) = resource.itemsAndSeq
                return (items.documents, UInt64(max(0, seq)) * EventIDSource.journalBlock)
            },
            narrow: { live in
                // NB: an index a large collection would build by parsing every item is built by the route first,
                // off the loop (`DocumentRoutes`); without one every item is read, as before.
                guard let filter = live.query.indexableFilter, !resource.needsIndexBuild(at: filter.path) else {
                    return nil
                }
                let (documents, seq) = resource.documentsAndSeq(whereValueAt: filter.path, isOneOf: filter.values)
                return (documents, UInt64(max(0, seq)) * EventIDSource.journalBlock)
            },
            ordered: { live in
                // NB: without a sort, the query's order is the collection's own.
                guard !live.query.sortKeys.isEmpty else {
                    let (items, seq) = resource.itemsAndSeq
                    return (items.documents, UInt64(max(0, seq)) * EventIDSource.journalBlock)
                }
                guard let order = sortIndex.kept(live.query) else { return nil }
                return (order.documents, UInt64(max(0, order.seq)) * EventIDSource.journalBlock)
            })
    }

    /// Builds the order of `query`'s sort keys on `workers` when it is not kept for the collection as it is now
    /// and no build of it is under way (a client asked again while it builds); whether an order of them is
    /// kept at all, of whatever state.
    func buildOrder(_ query: DocumentQuery, idPath: [String], workers: WorkerPool) -> Bool {
        let kept = sortIndex.kept(query) != nil
        let sortKey = DocumentLiveQuery.sortName(query)
        guard let build = sortIndex.missingBuild(query, on: resource, idPath: idPath),
            building.withLock({ $0.insert(sortKey).inserted })
        else { return kept }
        let submitted = workers.submit { [self] in
            build()
            building.withLock { _ = $0.remove(sortKey) }
        }
        if !submitted { building.withLock { _ = $0.remove(sortKey) } }
        return kept
    }

    /// An id's key: its JSON text.
    private static func key(of id: JSONValue) -> String { String(decoding: id.compactBytes, as: UTF8.self) }

    /// `change` took event `id` (called under the hub's lock, in id order).
    func changed(id: UInt64, change: DocumentChange) {
        switch change {
        case .inserted(let document), .updated(let document):
            collection.publish(id: id, edits: [.put(document)])
        case .deleted(let documentID):
            collection.publish(id: id, edits: [.remove(key: Self.key(of: documentID.value))])
        }
    }

    /// Ends every live query of the collection with `frame` last: it was removed from the data file.
    func end(with frame: SharedBytes) { collection.end(with: frame) }

    /// The answer to a list `GET` with `Accept: text/event-stream`: `query` is `asked` as the `GET` reads it
    /// now (`IgnoredParameters`); `relations` encodes an item as the plain `GET` does (with `_embed` and
    /// `_expand`).
    func reply(
        _ request: Request, query: DocumentQuery, asked: DocumentQuery, idField: String, relations: DocumentRelations
    ) throws(HTTPError) -> Reply {
        // NB: evaluated once here as the plain GET is (an equality filter narrowed through the field's index, a
        // large collection's sort taken from its sort index), so a query that cannot be answered is refused
        // before the stream opens. The GET never refuses a large collection's sort (it builds the index on a
        // worker first): while the index is not of the collection as it is now, the query is checked unsorted,
        // and the page its relations are checked on is read from the sort's order the live queries keep.
        let indexed = query.indexableFilter
        let idPath = [idField]
        let sorts = DocumentSortIndex.wanted(query, on: resource, narrowed: indexed != nil)
        let sorted = sorts ? sortIndex.use(query, on: resource) : (presorted: nil, rank: nil)
        var checked = query
        if sorts, sorted.presorted == nil, sorted.rank == nil { checked.sortKeys = [] }
        let documents =
            indexed.map { resource.documents(whereValueAt: $0.path, isOneOf: $0.values) } ?? sorted.presorted
            ?? resource.items.documents
        let page = try checked.apply(
            to: documents, narrowed: indexed != nil, presorted: sorted.presorted != nil, rank: sorted.rank,
            object: { $0.object }, knownValue: { document, path in path == idPath ? document.id?.value : nil },
            bytes: { $0.bytes })
        var live = DocumentLiveQuery(query: asked, idField: idField)
        if !query.embed.isEmpty || !query.expand.isEmpty {
            var items = page.items
            if sorts, sorted.presorted == nil, sorted.rank == nil {
                let reading = DocumentLiveQuery(query: query, idField: idField)
                guard let answer = collection.sortedAnswer(reading) else {
                    // NB: the order is made off the loop meanwhile; the client asks again (as for an index).
                    DispatchQueue.global().async { [collection] in collection.prepareOrder(for: reading) }
                    throw HTTPError(503, "busy", "The server is busy; try again.", headers: ["Retry-After": "1"])
                }
                items = answer
            }
            // NB: and an answer the GET would refuse for its size (`DocumentRelations`) is refused too.
            _ = try relations.encodeList(items)
            live.encodeItem = { @Sendable document in relations.encode(document) }
        }
        return try collection.reply(request, query: live)
    }
}
