import Bitsets
package import Patterns
import StrictJSON

extension DocumentQuery {
    /// A matcher that finds the search text (`q`) in an item's JSON bytes, ignoring case, or nil when the bytes
    /// cannot tell: an item whose bytes hold no match cannot pass the search, so it is skipped without being
    /// parsed or walked (a scan of 100,000 items' bytes by PCRE2 instead of a lowercased copy of each of their
    /// strings). An item whose bytes match is checked as before: the match may be in a key.
    ///
    /// NB: only for ASCII text without `"`, `\` or control characters, which JSON writes as themselves; other
    /// text may be escaped in the bytes, or equal to them only under Unicode's canonical equivalence.
    package func searchPrefilter() -> PatternMatcher? {
        guard let search, !search.isEmpty,
            search.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        // NB: U+0130 lowercases to `i` and a combining dot, so an `i` of the search text may be one in the bytes
        // (KELVIN SIGN, which lowercases to `k`, is in `k`'s case set already).
        let source = Self.literal(search).replacing("i", with: "(?:i|\\x{130})")
        guard let pattern = try? Pattern(source, limits: ListQuery.patternLimits) else {
            return nil
        }
        return PatternMatcher(pattern)
    }

    /// `text` (ASCII) as a pattern that matches it literally.
    static func literal(_ text: String) -> String {
        var escaped = ""
        for character in text {
            // A backslash before any ASCII character that is not a letter or digit makes it literal.
            if !(character.isLetter || character.isNumber) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// Whether some string value at any depth of `value`, lowercased as JavaScript lowercases it, holds the
    /// UTF-8 bytes of `search` (lowercased so): json-server's `toLowerCase().indexOf(q)`, which compares code
    /// units, where Swift's `contains` compares characters (canonically equivalent, whole clusters).
    static func contains(_ value: JSONValue, _ search: String) -> Bool {
        switch value {
        case .string(let text): ByteText.contains(JavaScriptCase.lowercased(text), search)
        case .array(let elements): elements.contains { contains($0, search) }
        case .object(let object): object.members.contains { contains($0.value, search) }
        default: false
        }
    }
}
