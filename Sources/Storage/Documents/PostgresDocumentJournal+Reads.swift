import Dispatch
package import Domain

/// Reads outside a batch, as the seeds' store makes them (`SQLiteDocumentJournal` answers the same ones): the
/// entry a key committed, and a resource's newest entry. Each is one statement on the journal's connection.
extension PostgresDocumentJournal {
    /// The first entries of the writes committed under `keys`, by key (a write sent again is answered from it).
    package func keyed(_ keys: [String]) throws(JournalError) -> [String: KeyedEntry] {
        guard !keys.isEmpty else { return [:] }
        switch wait(for: nil, Self.keyedEntries, [Self.json([keys])], until: .now() + 3) {
        case .success(let rows): return Self.keyed(rows)
        case .failure(let error): throw .unavailable("PostgreSQL did not answer: \(error.message)")
        }
    }

    /// The newest entry of `resource` retention still keeps (nil: none): how a starting server takes the
    /// upstream lists another one loaded instead of fetching its own.
    package func newest(of resource: String) throws(JournalError) -> JournalEntry? {
        let sql = "SELECT seq, resource, key, body FROM livestate_entries WHERE resource = $1 ORDER BY seq DESC LIMIT 1"
        switch wait(for: nil, sql, [resource], until: .now() + 3) {
        case .success(let rows): return rows.rows.isEmpty ? nil : Self.entry(rows, 0)
        case .failure(let error): throw .unavailable("PostgreSQL did not answer: \(error.message)")
        }
    }
}
