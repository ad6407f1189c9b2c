import Foundation

extension String {
    /// Whether every character is printable ASCII (a space to `~`): text whose UTF-8 bytes are its characters
    /// as a filter or the search compares them, case folding included.
    var isPlain: Bool { utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }

    /// Whether the canonical decomposition holds a character beyond ASCII: then no text of ASCII characters is
    /// canonically equivalent to it, nor holds it (a few non-ASCII characters, such as KELVIN SIGN, decompose
    /// to ASCII ones).
    var isBeyondASCII: Bool { decomposedStringWithCanonicalMapping.unicodeScalars.contains { !$0.isASCII } }

    /// Whether it holds a control character (below a space, or DEL): only a string holding that character, so
    /// one that is not printable ASCII, holds it (no control character has a case or a canonical equivalent).
    var hasControl: Bool { utf8.contains { $0 < 0x20 || $0 == 0x7F } }
}
