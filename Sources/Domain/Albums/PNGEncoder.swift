import Deflate

/// Encodes two-colour (1-bit palette) images as PNG files.
///
/// The image data is deflated by libdeflate (a zlib stream): a 150×150 placeholder is about 200 bytes
/// (3 kB stored), which is what keeps the page's 24 thumbnails light. Should libdeflate be unable to
/// allocate its compressor, the rows go in *stored* blocks instead, still a valid PNG; a 1-bit palette
/// keeps even a 2000×2000 image near 500 KB that way.
///
///     let bitmap = Bitmap(width: 2, height: 1)
///     let png = PNGEncoder.encode(bitmap, background: .init(red: 255, green: 0, blue: 0),
///                                 foreground: .init(red: 0, green: 0, blue: 0))
package enum PNGEncoder {
    /// The eight bytes every PNG file starts with.
    package static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The PNG bytes of `bitmap`: clear pixels in `background`, set pixels in `foreground`.
    package static func encode(_ bitmap: Bitmap, background: RGBColour, foreground: RGBColour) -> [UInt8] {
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(bitmap.width))
        header.appendBigEndian(UInt32(bitmap.height))
        header += [1, 3, 0, 0, 0]  // bit depth 1, colour type 3 (palette), deflate, filter 0, no interlace
        let palette = [
            background.red, background.green, background.blue, foreground.red, foreground.green, foreground.blue,
        ]

        var file = signature
        appendChunk("IHDR", header, to: &file)
        appendChunk("PLTE", palette, to: &file)
        let rows = scanlines(of: bitmap)
        appendChunk("IDAT", Zlib.compress(rows) ?? zlibStored(rows), to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    /// Each packed row preceded by its filter type, 0 (none).
    private static func scanlines(of bitmap: Bitmap) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((bitmap.rowBytes + 1) * bitmap.height)
        for y in 0..<bitmap.height {
            raw.append(0)
            raw += bitmap.packed[(y * bitmap.rowBytes)..<((y + 1) * bitmap.rowBytes)]
        }
        return raw
    }

    /// A zlib stream (RFC 1950) holding `data` in stored deflate blocks (RFC 1951 §3.2.4).
    package static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no preset dictionary; 0x7801 % 31 == 0
        out.reserveCapacity(data.count + data.count / 65_535 * 5 + 16)
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let isFinal: UInt8 = offset + length == data.count ? 1 : 0
            out.append(isFinal)  // BFINAL, BTYPE 00 (stored), padded to the byte
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        out.appendBigEndian(Checksum.adler32(data))
        return out
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        let typeAndData = Array(type.utf8) + data
        file.appendBigEndian(UInt32(data.count))
        file += typeAndData
        file.appendBigEndian(Checksum.crc32(typeAndData))
    }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [
            UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF),
        ])
    }
}
