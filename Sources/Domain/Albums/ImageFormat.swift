/// The image formats a download may hold, recognised by their first bytes (the seed's `UIImage(data:)`).
///
/// Raster formats only: the selected image is served from LiveState's own origin, and an SVG is a document
/// that can run script there (stored XSS for anyone who may select). Whatever the upstream's
/// `Content-Type` says, bytes that are not PNG, JPEG, GIF or WebP are not an image.
package enum ImageFormat: String, CaseIterable, Equatable, Sendable {
    /// PNG: `89 50 4E 47 0D 0A 1A 0A`.
    case png
    /// JPEG: `FF D8 FF`.
    case jpeg
    /// GIF: `GIF87a` or `GIF89a`.
    case gif
    /// WebP: `RIFF`, four size bytes, `WEBP`.
    case webp

    /// The media type to serve the image with.
    package var contentType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        }
    }

    /// Recognises `bytes` by their magic numbers; nil for anything that is not one of the four formats.
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
        } else {
            return nil
        }
    }
}
