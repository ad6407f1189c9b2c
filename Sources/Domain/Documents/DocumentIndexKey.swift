/// The text a field index files an item under (JavaScript's `String(value)`), equal to another only when their
/// code units are, as json-server's `value === String(item[field])` compares: Swift's `==` on `String` compares
/// by canonical equivalence, so `"a;b"` would find an item holding `"a\u{37E}b"` (GREEK QUESTION MARK) and a
/// precomposed `é` one holding `e` and a combining accent.
///
/// ```swift
/// DocumentIndexKey("K") == DocumentIndexKey("\u{212A}")  // false; "K" == "\u{212A}" is true
/// ```
struct DocumentIndexKey: Hashable, Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }

    /// NB: hashed as the `String` is (canonically equivalent texts hash alike, so texts of equal bytes do).
    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
