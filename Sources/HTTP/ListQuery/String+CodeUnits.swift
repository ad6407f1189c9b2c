import Bitsets

extension String {
    /// Whether its code units are those of `other`, as JavaScript's `===` compares strings (and json-server's
    /// filters their values): Swift's `==` compares by canonical equivalence, so `"K" == "\u{212A}"` (KELVIN
    /// SIGN) and a precomposed `é` equals `e` and a combining accent. UTF-8 bytes are equal exactly when the
    /// UTF-16 code units are.
    func hasCodeUnits(of other: String) -> Bool { utf8.elementsEqual(other.utf8) }

    /// The parts of v1's `:in` value, split at each comma as JavaScript's `split(',')` splits (by code unit, not
    /// at a character: a comma with a combining mark after it still splits), empty ones left out.
    var commaParts: [String] {
        utf8.split(separator: UInt8(ascii: ",")).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension JavaScriptCase {
    /// Whether `text` lowercased as JavaScript lowercases it passes `test` with `needle` lowercased so, comparing
    /// code units (`text.toLowerCase().includes(needle.toLowerCase())`, `startsWith`, `endsWith`): what v1's
    /// `contains`, `startsWith` and `endsWith` decide. An empty needle passes every text.
    static func passes(_ text: String, _ test: ByteText.ValueTest, _ needle: String) -> Bool {
        let (lower, wanted) = (lowercased(text), lowercased(needle))
        switch test {
        case .equal: return lower.hasCodeUnits(of: wanted)
        case .contains: return ByteText.contains(lower, wanted)
        case .startsWith: return lower.utf8.starts(with: wanted.utf8)
        case .endsWith: return lower.utf8.reversed().starts(with: wanted.utf8.reversed())
        }
    }
}
