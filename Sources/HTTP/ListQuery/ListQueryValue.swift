/// The value of one field of a listed item, as the list query language compares it.
package enum ListQueryValue: Sendable, Equatable {
    case integer(Int)
    case text(String)
    case boolean(Bool)

    /// The form a query parameter is compared with: `3`, `true`, the text itself (as json-server compares).
    package var queryForm: String {
        switch self {
        case .integer(let value): String(value)
        case .text(let value): value
        case .boolean(let value): value ? "true" : "false"
        }
    }

    /// Orders values of one field: numbers numerically, text by Unicode scalars, `false` before `true`.
    ///
    /// NB: text compares its UTF-8 bytes, which order as the scalars do, several times faster than
    /// `String.<` (which compares canonical equivalents equal), and a sort runs within the query's budget.
    package func sorts(before other: ListQueryValue) -> Bool {
        switch (self, other) {
        case (.integer(let lhs), .integer(let rhs)): lhs < rhs
        case (.boolean(let lhs), .boolean(let rhs)): !lhs && rhs
        default: queryForm.utf8.lexicographicallyPrecedes(other.queryForm.utf8)
        }
    }

    /// Orders this value against a query parameter (for `_gte`/`_lte`): numerically when both are numbers.
    package func compare(toQuery raw: String) -> ComparisonResult {
        if case .integer(let value) = self, let number = Int(raw) {
            return value == number ? .same : (value < number ? .before : .after)
        }
        let form = queryForm
        return form == raw ? .same : (form < raw ? .before : .after)
    }

    /// The outcome of `compare(toQuery:)`.
    package enum ComparisonResult {
        case before, same, after
    }
}
