/// The image formats a download may hold, recognised by their first bytes (the seed's `UIImage(data:)`).
package enum ImageFormat: String, CaseIterable, Equatable, Sendable {
    /// PNG: `89 50 4E 47 0D 0A 1A 0A`.
    case png
    /// JPEG: `FF D8 FF`.
    case jpeg
    /// GIF: `GIF87a` or `GIF89a`.
    case gif
    /// WebP: `RIFF`, four size bytes, `WEBP`.
    case webp
    /// SVG: XML text whose root element is `<svg`.
    case svg

    /// The media type to serve the image with.
    package var contentType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .svg: "image/svg+xml"
        }
    }

    /// Recognises `bytes` by their magic numbers; nil for anything that is not one of the five formats.
    ///
    ///     ImageFormat(sniffing: [0xFF, 0xD8, 0xFF, 0xE0]) // .jpeg
    ///     ImageFormat(sniffing: Array("hello".utf8))     // nil
    package init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(1024))
        if head.starts(with: PNGEncoder.signature) {
            self = .png
        } else if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            self = .webp
        } else if Self.isSVG(head) {
            self = .svg
        } else {
            return nil
        }
    }

    /// SVG is text: after an optional BOM, white space, an XML declaration, comments and a doctype,
    /// the first element must be `svg`.
    private static func isSVG(_ head: [UInt8]) -> Bool {
        // NB: decoding repairs a character cut at the 1024-byte edge; binary data never starts with `<svg`.
        var rest = Substring(String(decoding: head, as: UTF8.self))
        if rest.hasPrefix("\u{FEFF}") { rest.removeFirst() }
        while true {
            rest = rest.drop(while: \.isWhitespace)
            if rest.hasPrefix("<?") || rest.hasPrefix("<!--") || rest.hasPrefix("<!") {
                let terminator = rest.hasPrefix("<!--") ? "-->" : ">"
                guard let end = rest.firstRange(of: terminator) else { return false }
                rest = rest[end.upperBound...]
                continue
            }
            guard rest.hasPrefix("<svg") else { return false }
            guard let after = rest.dropFirst(4).first else { return true }
            return after == ">" || after == "/" || after.isWhitespace
        }
    }
}
