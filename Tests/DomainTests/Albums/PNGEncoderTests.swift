import Deflate
import Testing

@testable import Domain

/// Reads a PNG back: chunk framing and CRCs, then the image data inflated by libdeflate's decompressor.
private struct DecodedPNG {
    var chunkTypes: [String] = []
    var width = 0
    var height = 0
    var bitDepth = 0
    var colourType = 0
    var palette: [UInt8] = []
    var scanlines: [UInt8] = []

    init(_ file: [UInt8]) throws {
        #expect(Array(file.prefix(8)) == PNGEncoder.signature)
        var offset = 8
        var zlib: [UInt8] = []
        while offset < file.count {
            let length = Int(Self.uint32(file, offset))
            let typeAndData = Array(file[(offset + 4)..<(offset + 8 + length)])
            let type = String(decoding: typeAndData.prefix(4), as: UTF8.self)
            let data = Array(typeAndData.dropFirst(4))
            #expect(Self.uint32(file, offset + 8 + length) == Checksum.crc32(typeAndData), "CRC of \(type)")
            chunkTypes.append(type)
            switch type {
            case "IHDR":
                width = Int(Self.uint32(data, 0))
                height = Int(Self.uint32(data, 4))
                bitDepth = Int(data[8])
                colourType = Int(data[9])
            case "PLTE": palette = data
            case "IDAT": zlib += data
            default: break
            }
            offset += 12 + length
        }
        scanlines = try Zlib.decompress(zlib, limit: 1 << 24)
    }

    func pixel(_ x: Int, _ y: Int) -> Bool {
        let rowBytes = (width + 7) / 8
        return scanlines[y * (rowBytes + 1) + 1 + x / 8] & (0x80 >> UInt8(x % 8)) != 0
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

@Suite struct PNGEncoderTests {
    @Test func crc32AndAdler32MatchTheStandardCheckValues() {
        #expect(Checksum.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksum.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(Checksum.adler32([]) == 1)
    }

    @Test func encodesHeaderPaletteAndPixels() throws {
        var bitmap = Bitmap(width: 10, height: 3)
        bitmap[0, 0] = true
        bitmap[9, 2] = true
        let red = RGBColour(red: 255, green: 0, blue: 0)
        let white = RGBColour(red: 255, green: 255, blue: 255)
        let png = try DecodedPNG(PNGEncoder.encode(bitmap, background: red, foreground: white))
        #expect(png.chunkTypes == ["IHDR", "PLTE", "IDAT", "IEND"])
        #expect((png.width, png.height, png.bitDepth, png.colourType) == (10, 3, 1, 3))
        #expect(png.palette == [255, 0, 0, 255, 255, 255])
        for y in 0..<3 {
            for x in 0..<10 {
                #expect(png.pixel(x, y) == bitmap[x, y], "pixel \(x),\(y)")
            }
        }
    }

    @Test func aLargeImageIsDeflatedToAFractionOfItsRows() throws {
        let bitmap = Bitmap(width: 2000, height: 2000)  // 251 bytes a row: 502 000 bytes of scanlines
        let file = PNGEncoder.encode(
            bitmap, background: .init(red: 1, green: 2, blue: 3), foreground: .init(red: 0, green: 0, blue: 0))
        let png = try DecodedPNG(file)
        #expect(png.scanlines.count == 2000 * 251)
        #expect(png.width == 2000)
        #expect(file.count < 5_000)
    }

    @Test func storedBlocksTheFallbackIsAValidStreamInSeveralBlocks() throws {
        let rows = [UInt8](repeating: 0xA5, count: 150_000)  // three blocks of at most 65 535 bytes
        let stream = PNGEncoder.zlibStored(rows)
        #expect(stream.count == 2 + 3 * 5 + rows.count + 4)
        #expect(try Zlib.decompress(stream, limit: rows.count) == rows)
    }
}
