/// Why the framework list refused a selection; the server maps it to 404.
package enum FrameworkError: Error, Equatable, Sendable {
    /// No framework in the list has this name.
    case unknownName(String)

    /// The machine-readable code of the contract's error body.
    package var code: String { "not_found" }

    /// A sentence for a person.
    package var message: String {
        switch self {
        case .unknownName(let name): "There is no framework named '\(name)'."
        }
    }
}
