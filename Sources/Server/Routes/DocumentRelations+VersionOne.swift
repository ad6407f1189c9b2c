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
}
