import CJansson

/// NB: why jansson. Request bodies must be strict RFC 8259 with duplicate keys refused (docs/api.md,
/// Conventions), parsed by a well-kept C library rather than a parser of our own. Foundation's
/// `JSONSerialization`/`JSONDecoder` on Linux accept trailing commas (and silently keep the last of two
/// duplicate keys); Swift's standard library has no JSON parser. Debian's jansson (`libjansson-dev`)
/// rejects trailing commas, comments, `NaN`/`Infinity`, leading zeros, a byte-order mark, control
/// characters in strings, invalid UTF-8 and trailing content; refuses duplicate keys with
/// `JSON_REJECT_DUPLICATES`; keeps integers (`json_int_t`, 64-bit here) apart from reals and keeps object
/// members in their order; accepts NUL in strings with `JSON_ALLOW_NUL` (lengths are explicit); and stops
/// nesting at `JSON_PARSER_MAX_DEPTH` (2048 in Debian's build), so a 10,000-deep `[[[…` is an error, not a
/// stack overflow. It does not decode integers outside `json_int_t` (an error, not a rounded value,
/// unless `JSON_DECODE_INT_AS_REAL`, which this never sets: that flag turns every integer into a double).
extension JSONValue {
    /// How deep the converted value may nest; jansson's own limit (2048) bounds its parser first.
    public static let defaultMaxDepth = 512

    /// Parses `bytes` as one strict RFC 8259 JSON text (any value at the top, as RFC 8259 allows).
    ///
    /// ```swift
    /// try JSONValue(parsing: Array("[1, 2.5, \"x\"]".utf8))  // .array([.integer(1), .real(2.5), .string("x")])
    /// try JSONValue(parsing: Array("[1,]".utf8))            // throws .invalid(reason: .syntax, …)
    /// ```
    ///
    /// `maxValues` bounds how many values (every array element, object member and scalar counts) are
    /// converted to Swift: a reader that needs a few fields need not build a million.
    public init(
        parsing bytes: [UInt8], maxDepth: Int = JSONValue.defaultMaxDepth, maxValues: Int = .max
    ) throws(JSONParseError) {
        if let nul = bytes.firstIndex(of: 0) { throw Self.nulByte(in: bytes, at: nul) }
        let limits = Converter(maxDepth: maxDepth, maxValues: maxValues)
        var text = bytes
        // A number out of range stops jansson with only a position; to name the field it sits in, the number
        // is replaced by a string no client can have written (a per-parse random marker) and the text parsed
        // again, up to a few times; the marker's place in the result is the path.
        let marker = Self.outOfRangeMarker()
        var outOfRange: String?
        for attempt in 0...Self.outOfRangeLookups {
            switch Self.load(text, limits) {
            case .success(let value):
                guard let outOfRange else {
                    self = value
                    return
                }
                throw .numberOutOfRange(path: value.path(of: .string(marker)), text: outOfRange)
            case .failure(.numberOutOfRange(let offset)) where attempt < Self.outOfRangeLookups:
                let range = Self.numberRange(in: text, near: offset)
                let isFirst = outOfRange == nil
                if isFirst { outOfRange = String(decoding: text[range], as: UTF8.self) }
                text.replaceSubrange(range, with: Self.quoted(isFirst ? marker : "\u{1}"))
            case .failure(.numberOutOfRange(let offset)):
                let number = Self.numberRange(in: text, near: offset)
                throw .numberOutOfRange(path: nil, text: outOfRange ?? String(decoding: text[number], as: UTF8.self))
            case .failure(.other(let error)):
                throw error
            }
        }
        throw .numberOutOfRange(path: nil, text: outOfRange ?? "")
    }

    /// Parses the one JSON value that starts at `start` in `bytes` (after any whitespace) and returns it with
    /// the offset just past it; the bytes after it are not looked at. Within a depth of `maxDepth`.
    ///
    /// ```swift
    /// let text = Array(#"[{"id": 1}, {"id": 2}]"#.utf8)
    /// try JSONValue.parsing(text, from: 1)   // (.object(["id": 1]), 10)
    /// ```
    ///
    /// For reading a large text one part at a time (a data file item by item), so that jansson's tree and
    /// the converted value of only one part exist at once. An error's line, column and offset count from
    /// `start`, and a number out of range is reported without its path or text: a caller that must tell a
    /// person where the whole text is wrong parses the whole text with `init(parsing:)`.
    public static func parsing(
        _ bytes: [UInt8], from start: Int, maxDepth: Int = JSONValue.defaultMaxDepth
    ) throws(JSONParseError) -> (value: JSONValue, end: Int) {
        precondition(start >= 0 && start <= bytes.count, "the start is within the bytes")
        var error = json_error_t()
        // NB: JSON_DISABLE_EOF_CHECK stops jansson after the value, with `error.position` the bytes it read.
        let flags = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DISABLE_EOF_CHECK
        let root = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                json_loadb(characters.baseAddress.map { $0 + start }, characters.count - start, Int(flags), &error)
            }
        }
        guard let root else {
            let message = withUnsafeBytes(of: error.text) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let code = json_error_code(&error)
            if code == json_error_numeric_overflow {
                throw .numberOutOfRange(path: nil, text: "")
            }
            if code == json_error_stack_overflow { throw .tooDeep(limit: Int(JSON_PARSER_MAX_DEPTH)) }
            throw .invalid(
                reason: Self.reason(code), message: message, line: Int(error.line), column: Int(error.column),
                offset: Int(error.position))
        }
        defer { json_decref(root) }
        var converter = Converter(maxDepth: maxDepth, maxValues: .max)
        return (try converter.convert(root, depth: 0), start + Int(error.position))
    }

    /// How many out-of-range numbers one parse replaces while looking for the first one's path: each look
    /// parses the text again.
    private static let outOfRangeLookups = 3

    private enum LoadError: Error {
        /// jansson's position after (or on the last byte of) the number.
        case numberOutOfRange(offset: Int)
        case other(JSONParseError)
    }

    /// One jansson parse of `text`, converted.
    private static func load(_ text: [UInt8], _ limits: Converter) -> Result<JSONValue, LoadError> {
        var error = json_error_t()
        let flags = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL
        let root = text.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { json_loadb($0.baseAddress, $0.count, Int(flags), &error) }
        }
        guard let root else {
            let message = withUnsafeBytes(of: error.text) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let code = json_error_code(&error)
            let offset = Int(error.position)
            let parseError = JSONParseError.invalid(
                reason: Self.reason(code), message: message, line: Int(error.line), column: Int(error.column),
                offset: offset)
            if code == json_error_numeric_overflow {
                return .failure(.numberOutOfRange(offset: offset))
            }
            if code == json_error_stack_overflow {
                return .failure(.other(.tooDeep(limit: Int(JSON_PARSER_MAX_DEPTH))))
            }
            return .failure(.other(parseError))
        }
        defer { json_decref(root) }
        var converter = limits
        do {
            return .success(try converter.convert(root, depth: 0))
        } catch {
            return .failure(.other(error))
        }
    }

    /// The path of the first value equal to `target`, depth first in document order.
    private func path(of target: JSONValue, at path: JSONPath = JSONPath()) -> JSONPath? {
        if self == target { return path }
        switch self {
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = element.path(of: target, at: path.appending(.index(index))) { return found }
            }
        case .object(let object):
            for (key, value) in object.members {
                if let found = value.path(of: target, at: path.appending(.key(key))) { return found }
            }
        default:
            break
        }
        return nil
    }

    /// The bytes of the number token jansson stopped at, around `offset` (its position is just past the
    /// token, or on its last byte): a number is the only token made of these bytes.
    private static func numberRange(in text: [UInt8], near offset: Int) -> Range<Int> {
        func isNumberByte(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "+-.eE".utf8.contains(byte)
        }
        var end = min(max(offset, 0), text.count)
        while end > 0, !isNumberByte(text[end - 1]) { end -= 1 }
        while end < text.count, isNumberByte(text[end]) { end += 1 }
        var start = end
        while start > 0, isNumberByte(text[start - 1]) { start -= 1 }
        return start..<end
    }

    /// A random marker that starts with NUL, so that it cannot be a client's text by chance.
    private static func outOfRangeMarker() -> String {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
        return "\u{0}livestate-out-of-range-\(random)"
    }

    /// NB: a raw NUL byte is never JSON (not whitespace, not allowed unescaped in a string), but jansson's
    /// reader takes a NUL after a value as the end of its input (`444\0` and `[1]\0` parse): so it is
    /// refused here, before jansson sees the text, with its place (found by the fuzz stage, `80-fuzz`).
    private static func nulByte(in text: [UInt8], at offset: Int) -> JSONParseError {
        let before = text[..<offset]
        let line = 1 + before.lazy.filter { $0 == UInt8(ascii: "\n") }.count
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return .invalid(
            reason: .syntax, message: "a NUL byte is not JSON (write \\u0000 inside a string)", line: line,
            column: column, offset: offset)
    }

    /// `text` as a JSON string literal (the marker holds only ASCII and control characters).
    private static func quoted(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 {
                bytes += Array("\\u00".utf8) + Array(String(scalar.value, radix: 16).leftPadded(to: 2).utf8)
            } else {
                bytes += Array(String(scalar).utf8)
            }
        }
        return bytes + [UInt8(ascii: "\"")]
    }

    private static func reason(_ code: json_error_code) -> JSONParseError.Reason {
        switch code {
        case json_error_invalid_syntax, json_error_invalid_format: .syntax
        case json_error_duplicate_key: .duplicateKey
        case json_error_invalid_utf8: .invalidUTF8
        case json_error_premature_end_of_input: .prematureEnd
        case json_error_end_of_input_expected: .trailingContent
        case json_error_null_byte_in_key: .nulInKey
        default: .other
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}

/// Converts jansson's tree to a `JSONValue` within a depth and a count of values.
private struct Converter {
    let maxDepth: Int
    let maxValues: Int
    private var values = 0

    init(maxDepth: Int, maxValues: Int) {
        self.maxDepth = maxDepth
        self.maxValues = maxValues
    }

    mutating func convert(_ value: UnsafeMutablePointer<json_t>, depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw .tooDeep(limit: maxDepth) }
        values += 1
        guard values <= maxValues else { throw .tooManyValues(limit: maxValues) }
        switch CJansson_typeof(value) {
        case JSON_OBJECT:
            var object = JSONObject()
            var iterator = json_object_iter(value)
            while let current = iterator {
                let key = Self.string(json_object_iter_key(current), length: json_object_iter_key_len(current))
                guard let member = json_object_iter_value(current) else { break }
                object.appendNew(key, try convert(member, depth: depth + 1))
                iterator = json_object_iter_next(value, current)
            }
            return .object(object)
        case JSON_ARRAY:
            var elements: [JSONValue] = []
            elements.reserveCapacity(min(json_array_size(value), maxValues))
            for index in 0..<json_array_size(value) {
                guard let element = json_array_get(value, index) else { break }
                elements.append(try convert(element, depth: depth + 1))
            }
            return .array(elements)
        case JSON_STRING:
            return .string(Self.string(json_string_value(value), length: json_string_length(value)))
        case JSON_INTEGER: return .integer(Int64(json_integer_value(value)))
        case JSON_REAL: return .real(json_real_value(value))
        case JSON_TRUE: return .bool(true)
        case JSON_FALSE: return .bool(false)
        default: return .null
        }
    }

    /// A string of `length` bytes (which may hold NUL) from jansson, which has checked it is UTF-8.
    private static func string(_ pointer: UnsafePointer<CChar>?, length: Int) -> String {
        guard let pointer else { return "" }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
    }
}
