import CSQLite
import Domain

/// One SQLite database connection and its prepared statements: the only owner of SQLite's C pointers.
///
/// Not thread-safe by itself (opened with `SQLITE_OPEN_NOMUTEX`): its owner keeps it in a `Mutex`.
/// Statements are prepared once per SQL text and reused.
final class SQLiteConnection {
    private let database: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating if needed) the database at `path`; `:memory:` is a private in-memory database.
    init(path: String) throws(JournalError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(handle)
            throw .failed("cannot open \(path): \(message)", code: .sqlite(status))
        }
        database = handle
        sqlite3_busy_timeout(database, 5_000)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(database)
    }

    /// Runs one or more statements that bind nothing (schema, pragmas, transactions).
    func execute(_ sql: String) throws(JournalError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(database, sql, nil, nil, &error)
        defer { sqlite3_free(error) }
        guard status == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            throw .failed(message, code: .sqlite(sqlite3_extended_errcode(database)))
        }
    }

    /// Runs `sql` with `bindings` (1-based `?` in order) and returns every row, each as its column values.
    @discardableResult
    func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(JournalError) -> [[SQLiteValue]] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in bindings.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let integer): status = sqlite3_bind_int64(statement, index, integer)
            case .text(let text):
                status = text.withCString { CSQLite_bind_text_transient(statement, index, $0, Int32(text.utf8.count)) }
            case .null: status = sqlite3_bind_null(statement, index)
            }
            try check(status)
        }
        var rows: [[SQLiteValue]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { try check(status); return rows }
            rows.append((0..<sqlite3_column_count(statement)).map { column in value(statement, column) })
        }
    }

    /// The rowid of the last successful INSERT on this connection.
    var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(database)
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int {
        Int(sqlite3_changes(database))
    }

    private func prepared(_ sql: String) throws(JournalError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil))
        guard let statement else { throw .failed("empty statement: \(sql)") }
        statements[sql] = statement
        return statement
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_NULL: return .null
        default:
            guard let text = sqlite3_column_text(statement, column) else { return .null }
            // NB: with its length, never up to the first NUL: a title "abc\u{0}def" reads back whole.
            let length = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        }
    }

    private func check(_ status: Int32) throws(JournalError) {
        guard status == SQLITE_OK || status == SQLITE_ROW || status == SQLITE_DONE else {
            throw .failed(String(cString: sqlite3_errmsg(database)), code: .sqlite(sqlite3_extended_errcode(database)))
        }
    }
}
