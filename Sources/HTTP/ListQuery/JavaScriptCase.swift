import Bitsets

/// Lowercasing as JavaScript's `toLowerCase` does it, which json-server's `q` applies to the search text and to
/// each value before comparing their code units (`value.toString().toLowerCase().indexOf(q)`): Unicode's full
/// lowercase mapping of each scalar, as Swift's `lowercased()` gives it, and also the one rule that looks at the
/// text around a letter, Final_Sigma (a capital sigma after a cased letter and before none becomes `ς`, not `σ`),
/// which Swift's `lowercased()` does not apply.
///
/// ```swift
/// JavaScriptCase.lowercased("ΟΔΟΣ Σ")  // "οδος σ"; Swift's "ΟΔΟΣ Σ".lowercased() is "οδοσ σ"
/// ```
package enum JavaScriptCase {
    /// `text` lowercased as JavaScript's `toLowerCase` lowercases it.
    package static func lowercased(_ text: String) -> String {
        let lower = text.lowercased()
        guard text.unicodeScalars.contains(capitalSigma) else { return lower }
        // NB: each scalar lowercased on its own, so that a capital sigma's neighbours are those of the text.
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            if scalar == capitalSigma && isFinal(index, in: scalars) {
                result.append(finalSigma)
            } else {
                result.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            }
        }
        return String(result)
    }

    /// The lowercase of each scalar below 0x20000 when it is one scalar and does not depend on the text around it
    /// (0 for the capital sigma, U+0130, whose lowercase is two scalars, and the surrogates, which are no
    /// scalars); what `ByteText.lowercased` maps a large collection's text by, in C. No scalar from 0x20000 up
    /// has a lowercase other than itself.
    package static let table: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 0x20000)
        for code in UInt32(1)..<0x20000 {
            guard let scalar = Unicode.Scalar(code), scalar != capitalSigma else { continue }
            let lower = scalar.properties.lowercaseMapping.unicodeScalars
            if lower.count == 1, let first = lower.first { table[Int(code)] = first.value }
        }
        return table
    }()

    /// `text`'s segments (`ByteText`: each item's strings, each after a NUL, then a line feed) lowercased as
    /// `lowercased` lowercases each of their strings: in C by `table`, and a segment the table does not map
    /// (a capital sigma, U+0130) in Swift. A NUL or a line feed is neither cased nor ignorable, so a segment's
    /// strings lowercased together are each lowercased alone.
    package static func lowercased(segments text: [UInt8], starts: [Int]) -> (text: [UInt8], starts: [Int]) {
        let lower = ByteText.lowercased(text, starts: starts, table: table)
        guard !lower.unmapped.isEmpty else { return (lower.text, lower.starts) }
        var patched: [UInt8] = []
        patched.reserveCapacity(lower.text.count + 3 * lower.unmapped.count)
        var newStarts = [0]
        newStarts.reserveCapacity(starts.count)
        var next = 0
        for segment in lower.unmapped {
            // NB: the mapped segments between the unmapped ones as one slice each: a loop per segment costs
            // more in a debug build.
            if next < segment {
                let shift = patched.count - lower.starts[next]
                patched.append(contentsOf: lower.text[lower.starts[next]..<lower.starts[segment]])
                for start in lower.starts[(next + 1)...segment] { newStarts.append(start + shift) }
            }
            let original = String(decoding: text[starts[segment]..<starts[segment + 1]], as: UTF8.self)
            patched.append(contentsOf: lowercased(original).utf8)
            newStarts.append(patched.count)
            next = segment + 1
        }
        let count = starts.count - 1
        if next < count {
            let shift = patched.count - lower.starts[next]
            patched.append(contentsOf: lower.text[lower.starts[next]...])
            for start in lower.starts[(next + 1)...count] { newStarts.append(start + shift) }
        }
        return (patched, newStarts)
    }

    private static let capitalSigma: Unicode.Scalar = "\u{03A3}"
    private static let finalSigma: Unicode.Scalar = "\u{03C2}"

    /// Unicode's Final_Sigma: a cased letter before `index` (past case-ignorable ones), and none after it.
    private static func isFinal(_ index: Int, in scalars: [Unicode.Scalar]) -> Bool {
        var before = index - 1
        while before >= 0 && scalars[before].properties.isCaseIgnorable { before -= 1 }
        guard before >= 0 && scalars[before].properties.isCased else { return false }
        var after = index + 1
        while after < scalars.count && scalars[after].properties.isCaseIgnorable { after += 1 }
        return !(after < scalars.count && scalars[after].properties.isCased)
    }
}
