/// What an `Accept-Encoding` header (RFC 9110 §12.5.3) allows: here only whether gzip is acceptable.
///
/// `gzip` (or `x-gzip`) with a q-value above 0 accepts; `gzip;q=0` refuses even if `*` is listed; a `*`
/// above 0 accepts gzip when gzip is not named. A malformed q-value counts as 0 (identity is always safe).
///
/// ```swift
/// AcceptEncoding.acceptsGzip("br, gzip;q=0.8")   // true
/// AcceptEncoding.acceptsGzip("gzip;q=0, *")      // false
/// ```
package enum AcceptEncoding {
    /// Whether the header values `field` (joined with commas when repeated) accept gzip.
    package static func acceptsGzip(_ field: String?) -> Bool {
        guard let field else { return false }
        var named: Bool?
        var wildcard: Bool?
        for item in field.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let coding = parts.first?.trimmingWhitespace().lowercased(), !coding.isEmpty else { continue }
            var accepted = true
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "q" else { continue }
                accepted = (qValue(pair[1].trimmingWhitespace()) ?? 0) > 0
            }
            switch coding {
            case "gzip", "x-gzip": named = (named ?? false) || accepted
            case "*": wildcard = accepted
            default: break
            }
        }
        return named ?? wildcard ?? false
    }

    /// `0`, `0.5`, `1.000`… as thousandths; nil when not a q-value (RFC 9110 §12.4.2: at most 3 decimals, ≤ 1).
    static func qValue(_ text: String) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        var thousandths = whole == "1" ? 1000 : 0
        if parts.count == 2 {
            let decimals = parts[1]
            guard decimals.count <= 3, decimals.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            var value = 0
            for (index, digit) in decimals.enumerated() {
                value += Int(digit.asciiValue! - 48) * [100, 10, 1][index]
            }
            if whole == "1", value != 0 { return nil }
            thousandths += value
        }
        return thousandths
    }
}
