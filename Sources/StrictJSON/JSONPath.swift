/// Where a value sits in a JSON document, written as a client reads it: `items[3].id`.
public struct JSONPath: Sendable, Equatable, CustomStringConvertible {
    /// One step: an object member or an array element.
    public enum Component: Sendable, Equatable {
        /// The member with this key, as written.
        case key(String)
        /// The element at this zero-based index.
        case index(Int)
    }

    /// The steps from the document's root; empty for the root itself.
    public var components: [Component]

    /// A path of `components`.
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// This path, one step further.
    public func appending(_ component: Component) -> JSONPath {
        JSONPath(components + [component])
    }

    /// `items[3].id`; a root-level key alone (`id`); the root itself is the empty string.
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}
