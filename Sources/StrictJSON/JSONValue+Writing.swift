/// Writing a `JSONValue` back as text, members in their order, in the form JavaScript's `JSON.stringify`
/// gives: what a json-server user's file looks like, and what their front end expects to read.
///
/// ```swift
/// JSONValue.object(["id": .integer(1)]).compactBytes           // {"id":1}
/// JSONValue.object(["id": .integer(1)]).prettyBytes()          // {\n  "id": 1\n}
/// ```
extension JSONValue {
    /// The value as one line (`JSON.stringify(value)`).
    public var compactBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(into: &out, indent: 0, depth: 0)
        return out
    }

    /// The value with `indent` spaces per level (`JSON.stringify(value, null, 2)`): empty arrays and objects
    /// stay `[]` and `{}`, a member is `"key": value`.
    public func prettyBytes(indent: Int = 2) -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out, indent: indent, depth: 0)
        return out
    }

    /// Appends the value's text to `out`; `indent` 0 writes one line.
    public func write(into out: inout [UInt8], indent: Int, depth: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): out.append(contentsOf: String(value).utf8)
        case .real(let value): out.append(contentsOf: Self.javaScriptText(value).utf8)
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let elements):
            guard !elements.isEmpty else { return out.append(contentsOf: "[]".utf8) }
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, indent: indent, depth: depth + 1)
                element.write(into: &out, indent: indent, depth: depth + 1)
            }
            Self.newline(&out, indent: indent, depth: depth)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            object.write(into: &out, indent: indent, depth: depth)
        }
    }

    /// A number as JavaScript prints it: integral values below 1e21 without a fraction (`1.0` is `1`),
    /// others in the shortest form that reads back the same, exponents without leading zeros (`1e-7`).
    public static func javaScriptText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e21 {
            if abs(value) < 9.0e18 { return String(Int64(value)) }
            var digits = ""
            var remaining = abs(value)
            // NB: exact: an integral double below 1e21 is a whole number of at most 21 digits.
            while remaining >= 1 {
                let digit = remaining.truncatingRemainder(dividingBy: 10)
                digits.append(Character(String(Int(digit))))
                remaining = (remaining - digit) / 10
            }
            return (value < 0 ? "-" : "") + String(digits.reversed())
        }
        var text = value.description
        if let e = text.firstIndex(of: "e") {
            var exponent = text[text.index(after: e)...]
            var sign = "+"
            if exponent.first == "-" || exponent.first == "+" {
                sign = String(exponent.removeFirst())
            }
            while exponent.count > 1, exponent.first == "0" { exponent.removeFirst() }
            var mantissa = String(text[..<e])
            if mantissa.hasSuffix(".0") { mantissa.removeLast(2) }
            text = mantissa + "e" + sign + exponent
        }
        return text
    }

    /// A string in quotes, escaped as `JSON.stringify` escapes: quote, backslash, and control characters.
    ///
    /// NB: the runs between bytes that need an escape are copied whole (most strings have none): a data file's
    /// load writes every string of every item once, and a byte at a time was a tenth of a 100 MB file's load.
    public static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let utf8 = value.utf8
        var run = utf8.startIndex
        var index = run
        while index != utf8.endIndex {
            let byte = utf8[index]
            let next = utf8.index(after: index)
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                out.append(contentsOf: utf8[run..<index])
                appendEscape(of: byte, into: &out)
                run = next
            }
            index = next
        }
        out.append(contentsOf: utf8[run...])
        out.append(UInt8(ascii: "\""))
    }

    /// The escape `JSON.stringify` writes for `byte`, a quote, a backslash or a control character.
    private static func appendEscape(of byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
        case 0x08: out.append(contentsOf: #"\b"#.utf8)
        case 0x0C: out.append(contentsOf: #"\f"#.utf8)
        case 0x0A: out.append(contentsOf: #"\n"#.utf8)
        case 0x0D: out.append(contentsOf: #"\r"#.utf8)
        case 0x09: out.append(contentsOf: #"\t"#.utf8)
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: #"\u00"#.utf8)
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
    }

    /// Appends `compact`, one line of JSON as `compactBytes` writes it, in the form
    /// `write(into:indent:depth:)` gives the same value, without parsing it: a copy with line breaks and
    /// spaces put in, several times faster than writing the tree (a data file's items are kept as their
    /// compact bytes, and the whole file is written from them).
    ///
    /// ```swift
    /// JSONValue.writeIndented(compact: Array(#"{"a":[1,{}]}"#.utf8), into: &out, indent: 2, depth: 0)
    /// // {\n  "a": [\n    1,\n    {}\n  ]\n}
    /// ```
    ///
    /// NB: only this writer's compact form: no whitespace between tokens. Strings are copied as they are,
    /// escapes included, which is what the indented form holds too.
    public static func writeIndented(compact: [UInt8], into out: inout [UInt8], indent: Int, depth: Int) {
        var level = depth
        var start = 0
        var index = 0
        let count = compact.count
        while index < count {
            let byte = compact[index]
            switch byte {
            case UInt8(ascii: "\""):
                // Past the string: a quote that no backslash escapes ends it.
                index += 1
                while index < count {
                    let inner = compact[index]
                    if inner == UInt8(ascii: "\\") {
                        index += 2
                        continue
                    }
                    index += 1
                    if inner == UInt8(ascii: "\"") { break }
                }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if index + 1 < count, compact[index + 1] == close {
                    // An empty object or array stays `{}` or `[]`.
                    index += 2
                    continue
                }
                out.append(contentsOf: compact[start...index])
                level += 1
                newline(&out, indent: indent, depth: level)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                out.append(contentsOf: compact[start..<index])
                level -= 1
                newline(&out, indent: indent, depth: level)
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(contentsOf: compact[start...index])
                newline(&out, indent: indent, depth: level)
            case UInt8(ascii: ":"):
                out.append(contentsOf: compact[start...index])
                if indent > 0 { out.append(UInt8(ascii: " ")) }
            default:
                index += 1
                continue
            }
            index += 1
            start = index
        }
        out.append(contentsOf: compact[start..<count])
    }

    /// How many bytes `writeIndented(compact:into:indent:depth:)` appends for `compact`, without making them:
    /// what an item costs in an indented file (a deeply nested one costs many times its compact size, since
    /// every value gets a line of its own, indented by its depth).
    ///
    /// ```swift
    /// JSONValue.indentedCount(compact: Array(#"{"a":[1,{}]}"#.utf8), indent: 2, depth: 0)   // 25
    /// ```
    public static func indentedCount(compact: [UInt8], indent: Int, depth: Int) -> Int {
        guard indent > 0 else { return compact.count }
        var total = compact.count
        var level = depth
        var index = 0
        let count = compact.count
        while index < count {
            switch compact[index] {
            case UInt8(ascii: "\""):
                index += 1
                while index < count {
                    let inner = compact[index]
                    index += inner == UInt8(ascii: "\\") ? 2 : 1
                    if inner == UInt8(ascii: "\"") { break }
                }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = compact[index] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if index + 1 < count, compact[index + 1] == close {
                    index += 2
                    continue
                }
                level += 1
                total += 1 + indent * level
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                level -= 1
                total += 1 + indent * level
            case UInt8(ascii: ","):
                total += 1 + indent * level
            case UInt8(ascii: ":"):
                total += 1
            default: break
            }
            index += 1
        }
        return total
    }

    /// How many bytes `write(into:indent:depth:)` puts in beyond the compact form (its line breaks and
    /// spaces), from the tree: a walk of its values, not of its bytes, so a string costs nothing however long.
    /// `compactBytes.count` plus this is `indentedCount(compact:indent:depth:)` of the compact form.
    public func indentationSize(indent: Int, depth: Int) -> Int {
        guard indent > 0 else { return 0 }
        switch self {
        case .array(let elements) where !elements.isEmpty:
            var total = 1 + indent * depth
            for element in elements {
                total += 1 + indent * (depth + 1) + element.indentationSize(indent: indent, depth: depth + 1)
            }
            return total
        case .object(let object) where object.count > 0:
            var total = 1 + indent * depth
            for (_, member) in object.members {
                total += 2 + indent * (depth + 1) + member.indentationSize(indent: indent, depth: depth + 1)
            }
            return total
        default:
            return 0
        }
    }

    static func newline(_ out: inout [UInt8], indent: Int, depth: Int) {
        guard indent > 0 else { return }
        let count = 1 + indent * depth
        guard count <= lineBreaks.count else {
            out.append(UInt8(ascii: "\n"))
            return out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * depth))
        }
        // NB: one copy of a slice: a data file's rewrite puts in one line break per member and element.
        out.append(contentsOf: lineBreaks[..<count])
    }

    /// A line break and the spaces of every depth a data file's JSON may reach at a 2-space indent, copied
    /// from.
    ///
    /// NB: 64 spaces covered 32 levels: a deeper item's every line was appended a space at a time, several
    /// times slower, and a nested 1 MiB item makes some 70 MB of such lines.
    private static let lineBreaks: [UInt8] = [UInt8(ascii: "\n")] + Array(repeating: UInt8(ascii: " "), count: 1024)
}

extension JSONObject {
    /// The object as one line (`JSON.stringify(object)`), members in their order.
    public var compactBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(into: &out, indent: 0, depth: 0)
        return out
    }

    /// Appends the object's text to `out` (see `JSONValue.write(into:indent:depth:)`).
    public func write(into out: inout [UInt8], indent: Int, depth: Int) {
        guard count > 0 else { return out.append(contentsOf: "{}".utf8) }
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.newline(&out, indent: indent, depth: depth + 1)
            JSONValue.writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            if indent > 0 { out.append(UInt8(ascii: " ")) }
            member.value.write(into: &out, indent: indent, depth: depth + 1)
        }
        JSONValue.newline(&out, indent: indent, depth: depth)
        out.append(UInt8(ascii: "}"))
    }
}

extension JSONValue {
    /// The value as JavaScript's `String(value)` gives it (arrays joined by commas, objects as
    /// `[object Object]`, null as the empty text): what json-server compares a query parameter with.
    public var javaScriptString: String {
        switch self {
        case .null: ""
        case .bool(let flag): flag ? "true" : "false"
        case .integer(let number): String(number)
        case .real(let number): JSONValue.javaScriptText(number)
        case .string(let text): text
        case .array(let elements): elements.map(\.javaScriptString).joined(separator: ",")
        case .object: "[object Object]"
        }
    }
}

extension JSONObject {
    /// The value at `path` (`["author", "name"]`; an array element by its index), or nil.
    @inlinable public func value(at path: [String]) -> JSONValue? {
        guard let first = path.first, var current = self[first] else { return nil }
        for component in path.dropFirst() {
            switch current {
            case .object(let members):
                guard let next = members[component] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(component), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default: return nil
            }
        }
        return current
    }
}
