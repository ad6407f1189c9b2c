package import Foundation

/// The one JSON encoder configuration of the service.
package enum JSONCoding {
    /// A new encoder of the one configuration: compact (an SSE `data:` line and a journal row are one line),
    /// keys sorted (the same value always gives the same bytes, so cached bodies, ETags and the journal's
    /// comparison of a restarted list with its last event are stable), slashes not escaped (URLs stay
    /// readable). A new one per caller: `JSONEncoder` is not safe to share across threads.
    package static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` encoded with the one configuration (`makeEncoder`).
    package static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        Array(try makeEncoder().encode(value))
    }

    /// `value` encoded with the one configuration, as text (a journal row).
    package static func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try makeEncoder().encode(value), as: UTF8.self)
    }

    /// `text` as a JSON string literal.
    package static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
