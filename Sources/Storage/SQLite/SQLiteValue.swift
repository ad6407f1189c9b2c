/// A value bound to or read from an SQLite statement: the storage classes the todo table uses.
enum SQLiteValue: Equatable, Sendable {
    case integer(Int64)
    case text(String)
    case null

    /// The integer, or nil for another class.
    var integer: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The text, or nil for another class.
    var text: String? {
        if case .text(let value) = self { value } else { nil }
    }
}
