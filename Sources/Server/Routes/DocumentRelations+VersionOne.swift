import Domain
import HTTP

extension DocumentRelations {
    /// A list's answer: its items as a JSON array, or in json-server v1's page envelope when the query asks
    /// for it (`_page` with `_per_page`).
    func encodeAnswer(_ page: ListQueryPage<StoredDocument>) throws(HTTPError) -> [UInt8] {
        let list = try encodeList(page.items)
        return query.envelope ? page.versionOneEnvelope(data: list) : list
    }

    /// json-server v1's `_embed` of a parent (`/comments?_embed=post`): a name that is no collection but
    /// names a parent collection is taken as `_expand` of it.
    static func embeddingParents(_ query: inout DocumentQuery, in store: DocumentStore) {
        query.embed.removeAll { name in
            guard store.byName[name]?.kind != .collection, parent(named: name, in: store) != nil else { return false }
            if !query.expand.contains(name) { query.expand.append(name) }
            return true
        }
    }

    /// Only `_embed` and `_expand` of a query (an item's `GET` takes no filter).
    static func relationsOnly(_ query: QueryParameters) -> QueryParameters {
        QueryParameters(query.pairs.filter { $0.name == "_embed" || $0.name == "_expand" })
    }

    /// The children's collections and parent fields an `_embed` of `resource`'s items reads through their
    /// indexes.
    static func embedIndexes(_ query: DocumentQuery, _ store: DocumentStore, of resource: String)
        -> [(DocumentResource, [String])]
    {
        query.embed.compactMap { childName in
            guard let child = store.byName[childName], child.kind == .collection else { return nil }
            return (child, [store.parentField(of: resource)])
        }
    }
}
