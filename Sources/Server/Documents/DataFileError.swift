import StrictJSON

/// Why a data file cannot be served: one line for a person.
struct DataFileError: Error, CustomStringConvertible, Sendable {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// The error of bytes StrictJSON refused, with line and column.
    init(parse error: JSONParseError, empty: Bool) {
        switch error {
        case .invalid(_, let message, let line, let column, _):
            description =
                empty
                ? "the file is empty; it must hold a JSON object (for example {\"posts\": []})"
                : "not JSON at line \(line), column \(column): \(message)"
        case .tooDeep(let limit): description = "the JSON nests deeper than \(limit) levels"
        case .tooManyValues(let limit): description = "the JSON holds more than \(limit) values"
        case .numberOutOfRange(let path, let text):
            description = "the number \(text.prefix(40)) \(path.map { "at \($0) " } ?? "")does not fit 64 bits"
        }
    }
}
