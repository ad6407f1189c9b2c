/// The path parameters a route pattern captured (`/todos/:id` → `id`).
package struct Parameters: Sendable, Equatable {
    private var values: [String: String]

    package init(_ values: [String: String] = [:]) {
        self.values = values
    }

    /// Whether the route captured nothing.
    package var isEmpty: Bool { values.isEmpty }

    /// The raw (percent-decoded) value of `name`.
    package subscript(name: String) -> String? {
        values[name]
    }

    /// The value of `name` converted to `T`; a missing or unconvertible value is a 400 naming it.
    ///
    /// ```swift
    /// let id = try request.parameters.require("id", as: Int.self)
    /// ```
    package func require<T: LosslessStringConvertible>(_ name: String, as type: T.Type = T.self) throws(HTTPError) -> T
    {
        guard let raw = values[name] else {
            throw HTTPError.badRequest("missing path parameter '\(name)'", code: "invalid_parameter")
        }
        guard let value = T(raw) else {
            // Messages name what a person typed, never a Swift type.
            let integer = T.self is any FixedWidthInteger.Type
            if integer, !raw.isEmpty, raw.allSatisfy({ $0.isASCII && $0.isWholeNumber }) {
                throw HTTPError.badRequest(
                    "path parameter '\(name)' is too large: no \(name) is above \(Int.max), got '\(raw)'",
                    code: "invalid_parameter")
            }
            throw HTTPError.badRequest(
                "path parameter '\(name)' must be \(integer ? "a whole number" : "valid"), got '\(raw)'",
                code: "invalid_parameter")
        }
        return value
    }
}
