/// A failure of the storage engine (disk full, locked or corrupt file), with the engine's own message.
package struct TodoStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The engine's explanation, e.g. SQLite's `sqlite3_errmsg`.
    package var description: String

    /// Creates an error with the engine's explanation.
    package init(_ description: String) {
        self.description = description
    }
}
