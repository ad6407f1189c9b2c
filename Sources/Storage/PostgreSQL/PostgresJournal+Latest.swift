import Domain
import LibEvent

extension PostgresJournal {
    /// The newest entry of `topic` still in the journal (nil when there is none), answered on the loop: how
    /// an instance that starts takes the upstream lists another instance loaded instead of fetching its own
    /// (docs/architecture-instances.md). The query goes after any catch-up already sent on the read
    /// connection, so an entry `follow` applies later is newer than the one answered here.
    package func latest(
        topic: String, _ completion: @escaping @Sendable (Result<(seq: Int64, json: String)?, JournalError>) -> Void
    ) {
        loop.execute { [self] in
            guard let reader, reader.isReady else {
                return completion(.failure(.unavailable("PostgreSQL is unreachable")))
            }
            reader.query(Self.latestStatement, [topic]) { result in
                switch result {
                case .success(let rows):
                    completion(.success(rows.integer(0, 0).map { ($0, rows.rows[0][1] ?? "") }))
                case .failure(let error):
                    completion(.failure(.unavailable(error.description)))
                }
            }
        }
    }

    /// The newest entry of topic `$1`.
    static let latestStatement = "SELECT seq, body FROM livestate_entries WHERE resource = $1 ORDER BY seq DESC LIMIT 1"
}
