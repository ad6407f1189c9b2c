import Bitsets
import Patterns
package import StrictJSON

/// One field's values of a collection's items as one text, each distinct value as a filter reads it
/// (JavaScript's `String(value)`) on a line of its own, with the value each item holds: `_ne`, `_like` and
/// v1's `:ne`, `:in`, `:contains`, `:startsWith` and `:endsWith` on 100,000 items are answered from the text,
/// where a test per item (and the parse of each item) cost more than the work budget in a debug build.
///
/// Every answer is the one the per-item filter gives (`DocumentQuery.apply`), which compares texts as
/// JavaScript does (code units, `toLowerCase`): equality by the bytes of the text, `:contains` and the others
/// by those of its copy lowercased as JavaScript lowercases (`JavaScriptCase`), each in one pass in C
/// (`ByteText`), in any script; `_like` by PCRE2 searching the text. Only a list's `:contains`, which looks at
/// its elements, is tested item by item.
///
/// ```swift
/// let text = DocumentFieldText(values: documents.map { $0.object.value(at: ["title"]) })
/// let passing = try text.passing(filter, meter: &meter) { documents[$0].object }
/// ```
package struct DocumentFieldText: Sendable {
    /// A distinct value's JSON type: values of the same text and another type are distinct values (`1` and
    /// `"1"`), which `_where`'s strict equality tells apart.
    enum ValueType: UInt8 {
        case string, number, bool, null, array, object

        init(_ value: JSONValue) {
            switch value {
            case .string: self = .string
            case .integer, .real: self = .number
            case .bool: self = .bool
            case .null: self = .null
            case .array: self = .array
            case .object: self = .object
            }
        }
    }

    /// What PCRE2 may take for a line's end, whichever newline convention it was built with: a value holding
    /// one is matched alone by `_like`.
    static let newlines = Set("\n\r\u{0B}\u{0C}\u{85}\u{2028}\u{2029}".unicodeScalars)

    /// Each distinct value's text after a line feed, and a line feed.
    let text: [UInt8]
    /// Where each distinct value starts, and the end of the text (where one after the last would).
    let starts: [Int]
    /// `text` lowercased as JavaScript lowercases (`JavaScriptCase`), each value followed by its line feed.
    let lower: [UInt8]
    /// Where each distinct value starts in `lower`, and its end.
    let lowerStarts: [Int]
    /// Each distinct value's type.
    let types: [ValueType]
    /// Each distinct value as a number, as JavaScript's relational operators read it (NaN: none); only in
    /// a text made for `_where` (`init(conditionValues:)`), empty otherwise.
    let numbers: [Double]
    /// For each item, how many of the path's leading fields hold an object (`init(conditionValues:)`), empty
    /// otherwise: `_where`'s conditions on an object's members pass an item whose field is not one. NB: as
    /// `Int32`, the type a `Bitset` gathers from.
    let depths: [Int32]
    /// Whether each distinct value is a string.
    let strings: [Bool]
    /// Whether each distinct value is a number (only in a text made for `_where`, empty otherwise).
    let isNumber: [Bool]
    /// The places of the distinct values whose text holds a line's end (`newlines`), ascending.
    let broken: [Int]
    /// Each item's distinct value, or -1 when it has none (missing or null).
    let values: [Int32]
    /// The items whose value is a list, ascending.
    let lists: [Int]

    /// The text of `values` (nil: the item has no value at the field; null is taken as none).
    package init(values: [JSONValue?]) {
        self.init(values: values, keepsNull: false, depths: [])
    }

    /// The text of `values`; `keepsNull`: null is a value (`_where`'s), not none; `depths` kept as given.
    init(values: [JSONValue?], keepsNull: Bool, depths: [UInt8]) {
        var text: [UInt8] = []
        var starts: [Int] = []
        var types: [ValueType] = []
        var numbers: [Double] = []
        var broken: [Int] = []
        var (strings, isNumber): ([Bool], [Bool]) = ([], [])
        var distinct: [[UInt8]: Int32] = [:]
        var places: [Int32] = []
        var lists: [Int] = []
        places.reserveCapacity(values.count)
        for (item, value) in values.enumerated() {
            guard let value, keepsNull || value != .null else {
                places.append(-1)
                continue
            }
            var form = Array(value.javaScriptString.utf8)
            let type = ValueType(value)
            if type == .array { lists.append(item) }
            // NB: values of the same text and another type are told apart (a list's `:contains` differs from a
            // text's, `_where`'s `eq` tells `1` from `"1"`).
            let key = form + [type.rawValue]
            if let known = distinct[key] {
                places.append(known)
                continue
            }
            let place = Int32(types.count)
            distinct[key] = place
            places.append(place)
            text.append(0x0A)
            starts.append(text.count)
            let plain = form.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
            if !plain, value.javaScriptString.unicodeScalars.contains(where: Self.newlines.contains) {
                broken.append(types.count)
            }
            types.append(type)
            strings.append(type == .string)
            if keepsNull {
                numbers.append(DocumentWhere.javaScriptNumber(value) ?? .nan)
                isNumber.append(type == .number)
            }
            text.append(contentsOf: form)
            form = []
        }
        // NB: a line feed after the last value too: PCRE2's multiline `^` does not match at the end of a
        // text after its last line feed, where an empty last value would start.
        text.append(0x0A)
        starts.append(text.count)
        self.text = text
        self.starts = starts
        (lower, lowerStarts) = JavaScriptCase.lowercased(segments: text, starts: starts)
        self.types = types
        self.numbers = numbers
        self.strings = strings
        self.isNumber = isNumber
        self.depths = depths.map(Int32.init)
        self.broken = broken
        self.values = places
        self.lists = lists
    }

    /// How many items it holds.
    package var count: Int { values.count }

    /// How many distinct values it holds.
    var distinctCount: Int { types.count }

    /// The end of the distinct value at `place` (the line feed after it, or the end of the text).
    func end(of place: Int) -> Int { starts[place + 1] - 1 }

    /// The distinct value at `place` as its bytes.
    func bytes(of place: Int) -> [UInt8] { Array(text[starts[place]..<end(of: place)]) }

    /// The items fewer than `level` of whose path's leading fields hold an object (`depths`).
    func shallower(than level: Int) -> Bitset {
        Bitset(values: depths, marked: (0...Int(UInt8.max)).map { $0 < level })
    }
}
