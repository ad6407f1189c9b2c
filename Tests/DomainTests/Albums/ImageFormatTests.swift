import Testing

@testable import Domain

@Suite struct ImageFormatTests {
    static let recognised: [(String, [UInt8], ImageFormat)] = [
        ("png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], .png),
        ("jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array("JFIF".utf8), .jpeg),
        ("gif87", Array("GIF87a".utf8) + [1, 0, 1, 0], .gif),
        ("gif89", Array("GIF89a".utf8) + [1, 0, 1, 0], .gif),
        ("webp", Array("RIFF".utf8) + [0x1A, 0, 0, 0] + Array("WEBPVP8L".utf8), .webp),
    ]

    @Test(arguments: recognised)
    func recognisesMagicBytes(name: String, bytes: [UInt8], format: ImageFormat) {
        #expect(ImageFormat(sniffing: bytes) == format, "\(name)")
    }

    static let rejected: [(String, [UInt8])] = [
        ("empty", []),
        ("text", Array("this is not an image".utf8)),
        ("json", Array(#"{"url": "x.png"}"#.utf8)),
        ("html", Array("<html><body><svg></svg></body></html>".utf8)),
        ("svg-like element", Array("<svgfoo>".utf8)),
        // An SVG is a document that can run script on the origin that serves it: never an image here.
        ("svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg"><script>fetch('/todos')</script></svg>"#.utf8)),
        ("svg with prolog", Array("\u{FEFF}<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg>".utf8)),
        ("truncated png", [0x89, 0x50, 0x4E, 0x47]),
        ("riff but not webp", Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)),
        ("binary", [0, 1, 2, 3, 0xFF, 0xFE]),
    ]

    @Test(arguments: rejected)
    func dropsAnythingElse(name: String, bytes: [UInt8]) {
        #expect(ImageFormat(sniffing: bytes) == nil, "\(name)")
    }

    @Test func contentTypes() {
        #expect(
            ImageFormat.allCases.map(\.contentType) == [
                "image/png", "image/jpeg", "image/gif", "image/webp",
            ])
    }
}
