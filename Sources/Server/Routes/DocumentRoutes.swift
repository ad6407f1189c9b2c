import Domain
import Foundation
import HTTP
import Storage
import StrictJSON

extension Router {
    /// A user's data file, json-server style: per collection `GET/POST /name`, `GET/PUT/PATCH/DELETE
    /// /name/:id`, nested `GET/POST /name/:id/:child`; per singular resource `GET/PUT/PATCH/POST /name`; and
    /// `GET /db`; per value resource, a read-only `GET /name` (`addDocumentValue`). Every write goes through the
    /// `DocumentStore` and is answered once committed; with `--read-only` no write route exists, so the table
    /// answers 405 with `Allow`.
    mutating func addDocumentRoutes(
        _ service: DataFileService, live: [String: DocumentLiveFeed], workers: WorkerPool, readOnly: Bool, page: Bool
    ) {
        let store = service.store
        let values = service.values
        // NB: the whole file as json-server's `/db` answers it, in the file's order: value resources and
        // `$schema` too (json-server's state holds it; only its routes skip it).
        get("/db") { _ in
            let kept = values.snapshot
            let byName = Dictionary(kept.values.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let names = DataFileContent.writingOrder(
                kept.order, names: store.resources.map(\.name) + kept.values.map(\.name))
            var out: [UInt8] = [UInt8(ascii: "{")]
            for (index, name) in names.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(name, into: &out)
                out.append(UInt8(ascii: ":"))
                out.append(contentsOf: store.byName[name]?.bytes ?? byName[name]?.bytes ?? Array("null".utf8))
            }
            out.append(UInt8(ascii: "}"))
            return .response(.json(encoded: out))
        }
        if page {
            // The built-in page of a data file (`--public DIR` serves the user's own files instead).
            get("/") { _ in
                .response(
                    Response(
                        status: 200,
                        headers: [
                            "Content-Type": "text/html; charset=utf-8",
                            "Content-Security-Policy": ContentSecurityPolicy.page,
                        ],
                        body: PackageResources.data_page_html))
            }
            get("/_livestate/page.css") { _ in
                .response(
                    Response(
                        status: 200, headers: ["Content-Type": "text/css; charset=utf-8"],
                        body: PackageResources.data_page_css))
            }
            // NB: a browser asks for it on every first load; a 404 would be an error in its console.
            get("/favicon.ico") { _ in .response(.noContent) }
            get("/_livestate/page.js") { _ in
                .response(
                    Response(
                        status: 200, headers: ["Content-Type": "text/javascript; charset=utf-8"],
                        body: PackageResources.data_page_js))
            }
        }
        for resource in store.resources {
            switch resource.kind {
            case .collection:
                addCollection(resource, store, live: live[resource.name], workers: workers, readOnly: readOnly)
            case .singular: addSingular(resource, store, readOnly: readOnly)
            }
        }
        for name in values.served { addDocumentValue(name, values) }
    }

    private mutating func addCollection(
        _ resource: DocumentResource, _ store: DocumentStore, live: DocumentLiveFeed?, workers: WorkerPool,
        readOnly: Bool
    ) {
        let name = resource.name
        let idPath = [store.idField]
        let sortIndex = live?.sortIndex ?? DocumentSortIndex()
        sortIndex.rebuilds(on: workers)
        let searchIndex = DocumentSearchIndex(workers: workers)
        let fieldIndex = DocumentFieldIndex(workers: workers)
        get("/\(name)") { request in
            if let live, LiveQueryEngine.wantsStream(request) {
                // NB: the live query leaves out the parameters the GET ignores at each version, not just now.
                let asked = try Self.query(request.query, store)
                var query = asked
                IgnoredParameters.apply(to: &query, parameters: request.query, of: resource)
                var indexes = DocumentRelations.embedIndexes(query, store, of: name)
                if let indexed = query.indexableFilter { indexes.append((resource, indexed.path)) }
                // NB: a stream cannot follow a reply made on a worker: the indexes a large collection lacks are
                // built there meanwhile, and the client asked again (livestate.js does, as `EventSource` may not).
                let builds = indexes.filter { resource, path in resource.needsIndexBuild(at: path) }
                // So is a large collection's sort index, which the live query's first items come from (an order of
                // an earlier state is brought up to date by the changes since; it is built again meanwhile).
                let sorts = DocumentSortIndex.wanted(query, on: resource, narrowed: query.indexableFilter != nil)
                let ordered = !sorts || live.buildOrder(query, idPath: idPath, workers: workers)
                if !builds.isEmpty || !ordered {
                    _ = workers.submit { for (resource, path) in builds { resource.buildIndex(at: path) } }
                    throw HTTPError(503, "busy", "The server is busy; try again.", headers: ["Retry-After": "1"])
                }
                return try live.reply(
                    request, query: query, asked: asked, idField: store.idField,
                    relations: DocumentRelations(store: store, query: query, resource: name))
            }
            if request.query.isEmpty {
                let snapshot = resource.snapshot
                return .response(.json(encoded: snapshot.bytes, headers: ["X-Total-Count": String(snapshot.count)]))
            }
            let query = try Self.query(request.query, store, of: resource)
            // An equality filter narrows the items through the field's index, and the query checks them against
            // the other filters; a sort by id reads the item's id, so no item is parsed for either.
            let indexed = query.indexableFilter
            var indexes = DocumentRelations.embedIndexes(query, store, of: name)
            if let indexed { indexes.append((resource, indexed.path)) }
            // A sort of a large collection answers from its sort index (built on a worker when missing), a range
            // filter (`_gte`, `:lt`, …) from the order of its field (marked there when many pass, or sorted
            // otherwise); `_ne`, `_like`, `:contains`, … from the texts of their fields' values
            // (`DocumentFieldIndex`), unless an equality filter leaves few items.
            let range = DocumentSortIndex.range(query, on: resource)
            let matching = indexed.flatMap { DocumentSortIndex.matching($0, on: resource) }
            let few = (matching ?? .max) < DocumentSortIndex.threshold
            let marked = few ? nil : DocumentSortIndex.range(query, on: resource, anySort: true)
            // A search of a large collection scans its items' joined bytes (made on a worker when missing), its
            // places intersected with the fields' (equality ones too, when they leave many items).
            let searchable = !few && DocumentSearchIndex.wanted(query, on: resource, narrowed: false)
            let fields = DocumentFieldIndex.filters(
                of: query, on: resource, few: few, marking: marked != nil || searchable)
            let conditions = DocumentFieldIndex.conditionPaths(of: query, on: resource)
            let narrowed = indexed != nil && fields.isEmpty && marked == nil
            let sorts = range == nil && DocumentSortIndex.wanted(query, on: resource, narrowed: narrowed)
            let ordered = [(range ?? marked).map { DocumentQuery(ordering: $0.path) }, sorts ? query : nil]
            let searches = DocumentSearchIndex.wanted(query, on: resource, narrowed: narrowed)
            let builds =
                ordered.compactMap { $0 }.compactMap { sortIndex.missingBuild($0, on: resource, idPath: idPath) }
                + [searches ? searchIndex.missingBuild(on: resource) : nil].compactMap { $0 }
                + fieldIndex.missingBuilds(query, fields, conditions: conditions, on: resource, idPath: idPath)
            return Self.withIndexes(indexes, workers: workers, also: builds) { () throws(HTTPError) in
                func respond(_ page: ListQueryPage<StoredDocument>) throws(HTTPError) -> Response {
                    let body = try DocumentRelations(store: store, query: query, resource: name).encodeAnswer(page)
                    return .json(
                        encoded: body,
                        headers: page.headers(path: request.path, query: request.query, base: request.hostBase))
                }
                let order = sorts ? sortIndex.sorted(query, on: resource) : nil
                let ranged = range.flatMap { sortIndex.ranged(query, on: resource, range: $0, idPath: idPath) }
                let markedRange = marked.flatMap { marked in
                    sortIndex.sorted(DocumentQuery(ordering: marked.path), on: resource).map {
                        (marked.index, marked.path, $0)
                    }
                }
                if ranged == nil, !fields.isEmpty || markedRange != nil || !conditions.isEmpty || (searches && sorts),
                    let page = try fieldIndex.answer(
                        query, filters: fields, conditions: conditions, range: markedRange, on: resource, order: order,
                        idPath: idPath, searched: searches ? searchIndex.placing(query, on: resource) : nil)
                {
                    return try respond(page)
                }
                let sorted = sorts ? sortIndex.use(query, on: resource) : (presorted: nil, rank: nil)
                let narrowed = indexed.map { resource.documents(whereValueAt: $0.path, isOneOf: $0.values) }
                // NB: the fewer items of the two, the range's or the equality's, are the ones read.
                let fewer = ranged.flatMap { ranged in ranged.documents.count < narrowed?.count ?? .max ? ranged : nil }
                let documents = fewer?.documents ?? narrowed ?? sorted.presorted ?? resource.items.documents
                let page = try (fewer?.rest ?? query).apply(
                    to: documents, narrowed: fewer == nil && indexed != nil,
                    presorted: fewer?.presorted ?? (sorted.presorted != nil),
                    rank: sorted.rank,
                    object: { $0.object }, knownValue: { document, path in path == idPath ? document.id?.value : nil },
                    bytes: { $0.bytes },
                    searched: searches ? searchIndex.searching(query, on: resource) : nil)
                return try respond(page)
            }
        }
        get("/\(name)/:id") { request in
            let id = DocumentID(pathSegment: try request.require("id", as: String.self))
            guard let document = resource.document(id) else { throw Self.missing(name, id) }
            let query = try Self.query(DocumentRelations.relationsOnly(request.query), store)
            return .response(
                .json(encoded: DocumentRelations(store: store, query: query, resource: name).encode(document)))
        }
        get("/\(name)/:id/:child") { request in
            let parent = DocumentID(pathSegment: try request.require("id", as: String.self))
            let child = try Self.collection(named: try request.require("child", as: String.self), store)
            let childName = child.name
            guard let parentDocument = resource.document(parent) else { throw Self.missing(name, parent) }
            let field = store.parentField(of: name)
            let key = parentDocument.id?.key ?? parent.key
            let query = try Self.query(request.query, store, of: child)
            let indexes = [(child, [field])] + DocumentRelations.embedIndexes(query, store, of: childName)
            return Self.withIndexes(indexes, workers: workers) { () throws(HTTPError) in
                let children = DocumentRelations.children(of: key, in: child, field: field)
                let page = try query.apply(to: children) { $0.object }
                let body = try DocumentRelations(store: store, query: query, resource: childName).encodeAnswer(page)
                return .json(
                    encoded: body,
                    headers: page.headers(path: request.path, query: request.query, base: request.hostBase))
            }
        }
        guard !readOnly else { return }
        post("/\(name)") { request in
            let body = try request.documentBody(idField: store.idField)
            return try Self.submit(store, request, again: Self.created) { view throws(HTTPError) in
                try Self.insert(body, into: name, view: &view, store: store)
            }
        }
        post("/\(name)/:id/:child") { request in
            let parent = DocumentID(pathSegment: try request.require("id", as: String.self))
            let child = try Self.collection(named: try request.require("child", as: String.self), store)
            let childName = child.name
            let given = try request.documentBody(idField: store.idField)
            let field = store.parentField(of: name)
            return try Self.submit(store, request, again: Self.created) { view throws(HTTPError) in
                guard let parentDocument = view.document(name, parent) else { throw Self.missing(name, parent) }
                // The parent's id as the parent stores it: a number stays a number.
                var body = given
                body[field] = parentDocument[store.idField] ?? parent.value
                return try Self.insert(body, into: childName, view: &view, store: store)
            }
        }
        put("/\(name)/:id") { request in
            let id = DocumentID(pathSegment: try request.require("id", as: String.self))
            let body = try request.documentBody(idField: store.idField)
            return try Self.submit(store, request, again: Self.item(status: 200)) { view throws(HTTPError) in
                guard let old = view.document(name, id) else { throw Self.missing(name, id) }
                let object = DataFileContent.withID(body, idField: store.idField, value: old[store.idField] ?? id.value)
                return Self.plan(name, id, object, status: 200)
            }
        }
        patch("/\(name)/:id") { request in
            let id = DocumentID(pathSegment: try request.require("id", as: String.self))
            let body = try request.documentBody(idField: store.idField)
            return try Self.submit(store, request, again: Self.item(status: 200)) { view throws(HTTPError) in
                guard var object = view.document(name, id) else { throw Self.missing(name, id) }
                for (key, value) in body.members where key != store.idField { object[key] = value }
                return Self.plan(name, id, object, status: 200)
            }
        }
        delete("/\(name)/:id") { request in
            let id = DocumentID(pathSegment: try request.require("id", as: String.self))
            return try Self.submit(store, request, again: { _ in Self.deleted }) { view throws(HTTPError) in
                guard view.document(name, id) != nil else { throw Self.missing(name, id) }
                var entries = [DocumentStore.Planned(resource: name, id: id, document: nil)]
                // json-server's cascade: the items of other collections that name this one as their parent.
                let field = store.parentField(of: name)
                for other in store.resources where other.kind == .collection && other.name != name {
                    // NB: from the field's index, unless an earlier plan of the batch changed the collection.
                    let children =
                        view.hasChanges(in: other.name)
                        ? view.documents(other.name).filter { $0.1[field].map(DocumentQuery.text) == id.key }.map(\.0)
                        : DocumentRelations.children(of: id.key, in: other, field: field).compactMap(\.id)
                    for childID in children {
                        entries.append(DocumentStore.Planned(resource: other.name, id: childID, document: nil))
                    }
                }
                return DocumentStore.Plan(entries: entries, response: Self.deleted)
            }
        }
    }

    /// Answers `answer()` at once, or, when one of `indexes` (a collection and a field) would first have
    /// to be built by parsing every item of a large collection, builds those on a worker and answers from
    /// there: the loop goes on serving others meanwhile, and reads and writes of the collection too. `also`:
    /// other builds the answer waits for (a sort index, a search text), made on the worker too.
    private static func withIndexes(
        _ indexes: [(DocumentResource, [String])], workers: WorkerPool, also: [@Sendable () -> Void] = [],
        _ answer: @escaping @Sendable () throws(HTTPError) -> Response
    ) -> Reply {
        let answering: @Sendable () -> Response = { () -> Response in
            do throws(HTTPError) { return try answer() } catch { return Response(error: error) }
        }
        let builds = indexes.filter { resource, path in resource.needsIndexBuild(at: path) }
        guard !builds.isEmpty || !also.isEmpty else { return .response(answering()) }
        return .later { respond in
            workers.reply(respond) {
                for (resource, path) in builds { resource.buildIndex(at: path) }
                for build in also { build() }
                return answering()
            }
        }
    }

    private mutating func addSingular(_ resource: DocumentResource, _ store: DocumentStore, readOnly: Bool) {
        let name = resource.name
        get("/\(name)") { _ in .response(.json(encoded: resource.bytes)) }
        guard !readOnly else { return }
        // json-server's `POST /profile` replaces the resource too, and answers 201 where `PUT` answers 200.
        let replace: @Sendable (Int) -> Router.Handler = { status in
            { request in
                let body = try request.documentBody(idField: store.idField)
                return try Self.submit(store, request, again: Self.item(status: status)) { _ throws(HTTPError) in
                    Self.plan(name, nil, body, status: status)
                }
            }
        }
        put("/\(name)", replace(200))
        post("/\(name)", replace(201))
        patch("/\(name)") { request in
            let body = try request.documentBody(idField: store.idField)
            return try Self.submit(store, request, again: Self.item(status: 200)) { view throws(HTTPError) in
                var object = view.singular(name)
                for (key, value) in body.members { object[key] = value }
                return Self.plan(name, nil, object, status: 200)
            }
        }
    }

    // MARK: Helpers

    /// Submits `plan` under the request's `Idempotency-Key` (on a shared database, a key of the server's when
    /// the client sent none, so that a 504 names a key to send the write again with); `again` answers the
    /// same request sent again after it committed, from its first entry.
    private static func submit(
        _ store: DocumentStore, _ request: Request, again: @escaping @Sendable (JournalChange) -> Response,
        _ plan: @escaping @Sendable (inout DocumentView) throws(HTTPError) -> DocumentStore.Plan
    ) throws(HTTPError) -> Reply {
        let key = try request.idempotencyKey() ?? (store.isShared ? WriteKey.serverMade() : nil)
        let keyed = key.map { key in
            DocumentStore.Keyed(
                key: WriteKey(key: key, request: "\(request.method.rawValue) \(request.path)"), answer: again)
        }
        return .later { respond in store.submit(plan, keyed: keyed, respond: respond) }
    }

    /// A `DELETE`'s answer, as json-server's.
    private static let deleted = Response.json(encoded: Array("{}".utf8))

    /// The answer to an insert sent again: the item it committed, 201, and where it is.
    @Sendable private static func created(_ first: JournalChange) -> Response {
        var response = Response.json(encoded: Array((first.document ?? "{}").utf8), status: 201)
        if let id = first.id { response.headers["Location"] = "/\(first.collection)/\(Self.pathEncoded(id))" }
        return response
    }

    /// The answer to a replace or merge sent again: the item (or resource) as it committed.
    private static func item(status: Int) -> @Sendable (JournalChange) -> Response {
        { first in .json(encoded: Array((first.document ?? "{}").utf8), status: status) }
    }

    private static func insert(
        _ body: JSONObject, into name: String, view: inout DocumentView, store: DocumentStore
    ) throws(HTTPError) -> DocumentStore.Plan {
        // NB: `"id": null` is no id given, as json-server takes it (a form's new item often says so).
        let requested = body[store.idField].flatMap { $0 == .null ? nil : $0 }
        let id = try view.newID(in: name, requested: requested)
        let object = DataFileContent.withID(body, idField: store.idField, value: id.value)
        var plan = plan(name, id, object, status: 201)
        plan.response.headers["Location"] = "/\(name)/\(Self.pathEncoded(id.key))"
        return plan
    }

    private static func plan(_ name: String, _ id: DocumentID?, _ object: JSONObject, status: Int) -> DocumentStore.Plan
    {
        DocumentStore.Plan(
            entries: [DocumentStore.Planned(resource: name, id: id, document: object)],
            response: .json(encoded: object.compactBytes, status: status))
    }

    /// The collection a nested route's last segment names, its name matched in any case as the first
    /// segment's is (`/posts/1/COMMENTS`); a 404 when there is none.
    private static func collection(named name: String, _ store: DocumentStore) throws(HTTPError) -> DocumentResource {
        let found =
            store.byName[name] ?? store.resources.first { $0.name.lowercased() == name.lowercased() }
        guard let found, found.kind == .collection else {
            throw HTTPError.notFound("no collection '\(name)' in the data file")
        }
        return found
    }

    private static func missing(_ name: String, _ id: DocumentID) -> HTTPError {
        .notFound("\(name) has no item with id \(id.key.prefix(200))")
    }

    /// `parameters` as a query, whose `_embed` and `_expand` name resources of `store`: a name that is none is
    /// a 400 (a typo would otherwise quietly embed nothing; a data file gains no collection while it runs).
    /// On the items of `resource`, without the parameters json-server ignores (`IgnoredParameters`).
    private static func query(
        _ parameters: QueryParameters, _ store: DocumentStore, of resource: DocumentResource? = nil
    ) throws(HTTPError) -> DocumentQuery {
        var query = try DocumentQuery(parameters)
        if let resource { IgnoredParameters.apply(to: &query, parameters: parameters, of: resource) }
        DocumentRelations.embeddingParents(&query, in: store)
        let collections = store.resources.filter { $0.kind == .collection }.map(\.name).joined(separator: ", ")
        for name in query.embed where store.byName[name]?.kind != .collection {
            throw HTTPError.badRequest(
                "'_embed=\(name)' names no collection of the data file; its collections are \(collections)",
                code: "invalid_query")
        }
        for name in query.expand where DocumentRelations.parent(named: name, in: store) == nil {
            throw HTTPError.badRequest(
                "'_expand=\(name)' names no parent collection (one whose singular is \(name)) of the data file; its"
                    + " collections are \(collections)", code: "invalid_query")
        }
        return query
    }

    private static func pathEncoded(_ key: String) -> String {
        key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? key
    }
}
