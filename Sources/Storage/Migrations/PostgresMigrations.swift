/// The schema of one kind of PostgreSQL database (the seeds', a data file's) as named steps, applied in order,
/// each in a transaction of its own that also records its name in `livestate_migrations`, as
/// `SQLiteMigrations` does on SQLite (docs/architecture.md, "Schema migrations"). Several servers may start
/// together on one database: each transaction holds the advisory lock `lock`, and a step records its name
/// first, so a step another server applied meanwhile fails on the name's key and is skipped.
///
/// - `check` runs first at every start (a `DO` block that raises on a database of the other kind);
/// - a database from before the table is recognised once by `older`, a statement run when the table is made
///   that inserts the names of the steps its old marker says it has (the seeds' `livestate_schema` version);
/// - a database whose table names a step this binary does not know was written by a newer LiveState: it is
///   refused before anything in it changes, with one line naming the step.
///
/// Statements are sent on the connection's loop; `done` is called there once.
///
/// ```swift
/// PostgresDocumentJournal.migrations(for: .seeds).migrate(connection) { result in … }   // on the connection's loop
/// ```
struct PostgresMigrations: Sendable {
    /// One named step: SQL run inside the step's transaction.
    typealias Step = (name: String, sql: String)

    /// The advisory lock every migration transaction holds.
    let lock: Int
    /// Run first in the transaction that reads the applied steps (a `DO` block; may be empty).
    let check: String
    /// Run once when `livestate_migrations` is made: inserts the names of the steps an older database has.
    let older: String
    /// The steps, oldest first. A step is never renamed or removed once released: a database names it.
    let steps: [Step]

    /// The code of the error of a database that names a step this binary does not know (as an SQLSTATE of
    /// LiveState's own, beside `LSV01` and `LSV02`).
    static let newerStepState = "LSV03"

    /// The SQLSTATE of a unique violation: the step's name was recorded by another server.
    private static let uniqueViolation = "23505"

    /// Brings the database of `connection` up to the last step; a database of a newer LiveState fails with
    /// `.refused`, nothing changed.
    func migrate(_ connection: PostgresConnection, _ done: @escaping @Sendable (Result<Void, PostgresError>) -> Void) {
        connection.script(recognise) { result in
            switch result {
            case .failure(let error): done(.failure(error))
            case .success(let rows):
                let applied = Set(rows.rows.compactMap { $0.first ?? nil })
                let known = Set(steps.map(\.name))
                if let unknown = applied.subtracting(known).sorted().first {
                    return done(
                        .failure(
                            PostgresError(
                                .refused,
                                "the database was written by a newer LiveState (it has the schema step \"\(unknown)\","
                                    + " which this one does not know); nothing was changed",
                                sqlState: Self.newerStepState)))
                }
                apply(steps.filter { !applied.contains($0.name) }[...], connection, done)
            }
        }
    }

    private func apply(
        _ pending: ArraySlice<Step>, _ connection: PostgresConnection,
        _ done: @escaping @Sendable (Result<Void, PostgresError>) -> Void
    ) {
        guard let step = pending.first else { return done(.success(())) }
        let sql = """
            SET LOCAL client_min_messages = warning;
            SELECT pg_advisory_xact_lock(\(lock));
            INSERT INTO livestate_migrations (name) VALUES ('\(step.name)');
            \(step.sql)
            """
        connection.script(sql) { result in
            if case .failure(let error) = result, error.sqlState != Self.uniqueViolation {
                return done(
                    .failure(
                        PostgresError(
                            error.kind, "schema step \"\(step.name)\": \(error.message)",
                            sqlState: error.sqlState)))
            }
            apply(pending.dropFirst(), connection, done)
        }
    }

    /// The transaction that makes the table (recognising an older database) and reads the applied steps.
    private var recognise: String {
        """
        SET LOCAL client_min_messages = warning;
        SELECT pg_advisory_xact_lock(\(lock));
        \(check)
        DO $migrations$ BEGIN
            IF to_regclass('livestate_migrations') IS NULL THEN
                CREATE TABLE livestate_migrations (
                    name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
                \(older)
            END IF;
        END $migrations$;
        SELECT name FROM livestate_migrations;
        """
    }
}
