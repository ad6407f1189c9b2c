/// A failure talking to PostgreSQL, with what it means for a statement that was sent.
package struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, from the caller's point of view.
    package enum Kind: Equatable, Sendable {
        /// The server could not be reached, or the connection was closed before the statement was sent:
        /// it did not run.
        case unreachable
        /// The connection broke after the statement was sent: it may or may not have committed.
        case outcomeUnknown
        /// The server ran the statement and refused it (`sqlState` says why); nothing was committed.
        case refused
    }

    /// What went wrong.
    package var kind: Kind
    /// The five-character SQLSTATE of a refused statement (`23505` unique violation, …).
    package var sqlState: String?
    /// libpq's or the server's explanation.
    package var message: String

    /// Creates an error.
    package init(_ kind: Kind, _ message: String, sqlState: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    /// The explanation, prefixed with the SQLSTATE when there is one.
    package var description: String {
        sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message
    }
}

/// The rows a statement returned, each column as text (libpq's text format) or nil for SQL NULL.
package struct PostgresRows: Sendable, Equatable {
    /// The column names, in order.
    package var columns: [String] = []
    /// The rows, each with one value per column.
    package var rows: [[String?]] = []
    /// The number of rows the statement changed (`UPDATE 3` → 3), 0 for a query.
    package var affected = 0

    /// The value of `column` in the first row as an integer.
    package func integer(_ row: Int = 0, _ column: Int = 0) -> Int64? {
        guard rows.indices.contains(row), rows[row].indices.contains(column), let text = rows[row][column] else {
            return nil
        }
        return Int64(text)
    }
}
