package import StrictJSON

/// The id of an item of a data file's collection. json-server compares ids by their text (`/posts/1` finds
/// the item whose id is `1` or `"1"`), so two items whose ids read the same are the same item: `key` is that
/// text, `value` the id as the file or the client wrote it (a number stays a number).
package struct DocumentID: Hashable, Sendable {
    /// The id's text: the number's digits, or the string itself.
    package let key: String
    /// The id as stored in the item.
    package let value: JSONValue

    /// The id `value`, when it is one: an integer or a non-empty string (a real, a boolean, null, an array
    /// or an object is not an id).
    package init?(_ value: JSONValue) {
        switch value {
        case .integer(let number): key = String(number)
        case .string(let text) where !text.isEmpty: key = text
        default: return nil
        }
        self.value = value
    }

    /// The id `key` as a path gives it: a number when it reads as one that writes back the same, else text.
    package init(pathSegment key: String) {
        self.key = key
        if let number = Int64(key), String(number) == key { value = .integer(number) } else { value = .string(key) }
    }

    /// A random URL-safe string id of 10 characters (a collection whose ids are strings).
    package static func random() -> DocumentID {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
        return DocumentID(.string(String((0..<10).map { _ in alphabet.randomElement()! })))!
    }

    package static func == (lhs: DocumentID, rhs: DocumentID) -> Bool { lhs.key == rhs.key }
    package func hash(into hasher: inout Hasher) { hasher.combine(key) }
}
