/// Why bytes are not a JSON text LiveState accepts.
public enum JSONParseError: Error, Equatable, Sendable {
    /// Not RFC 8259 JSON, or a duplicate key: jansson's message and where it points (1-based line and
    /// column, 0-based byte offset).
    case invalid(reason: Reason, message: String, line: Int, column: Int, offset: Int)
    /// Nested deeper than the parse allows.
    case tooDeep(limit: Int)
    /// Holds more values than the parse converts.
    case tooManyValues(limit: Int)
    /// A number that does not fit its type: an integer outside `Int64`, a real beyond `Double`. The path
    /// names the value (nil only when a document holds more such numbers than are looked up one by one).
    case numberOutOfRange(path: JSONPath?, text: String)

    /// The kind of an ``invalid(reason:message:line:column:offset:)`` error, from jansson's error code.
    public enum Reason: String, Sendable {
        /// Not JSON: a trailing comma, a comment, `NaN`, a leading zero, a byte-order mark, a bare word….
        case syntax
        /// An object has the same key twice.
        case duplicateKey
        /// The text is not valid UTF-8, or escapes a lone surrogate (`"\ud800"`).
        case invalidUTF8
        /// The text ends before the value does (also an empty body).
        case prematureEnd
        /// Something follows the value.
        case trailingContent
        /// An object key holds NUL, which jansson does not support in keys.
        case nulInKey
        /// Anything else jansson reports (out of memory).
        case other
    }
}
