import Testing

@testable import Domain

@Suite struct PlaceholderImageTests {
    @Test(arguments: [0, -1, 2001])
    func rejectsSizesOutsideTheRange(size: Int) {
        #expect(PlaceholderImage(size: size, colour: .init(red: 0, green: 0, blue: 0)) == nil)
    }

    @Test(arguments: ["ff880", "ff88000", "gg8800", "#ff880", "", "ff 800"])
    func rejectsMalformedColours(hex: String) {
        #expect(RGBColour(hex: hex) == nil)
    }

    @Test func parsesColoursInEitherCase() {
        #expect(RGBColour(hex: "Ff8800") == RGBColour(red: 255, green: 136, blue: 0))
        #expect(RGBColour(hex: "92c952") == RGBColour(red: 0x92, green: 0xC9, blue: 0x52))
    }

    @Test func labelContrastsWithTheBackground() {
        #expect(RGBColour(hex: "ffffff")?.contrasting == RGBColour(red: 0, green: 0, blue: 0))
        #expect(RGBColour(hex: "000080")?.contrasting == RGBColour(red: 255, green: 255, blue: 255))
    }

    @Test func drawsTheSizeCentredInTheMiddleRows() throws {
        let image = try #require(PlaceholderImage(size: 150, colour: .init(red: 0x92, green: 0xC9, blue: 0x52)))
        #expect(image.label == "150x150")
        let bitmap = image.bitmap()
        let setRows = (0..<150).filter { y in (0..<150).contains { x in bitmap[x, y] } }
        #expect(!setRows.isEmpty)
        // Centred vertically within a pixel, and no pixel on the border.
        #expect(abs((setRows.first! + setRows.last!) - 149) <= 1)
        #expect(!(0..<150).contains { bitmap[$0, 0] || bitmap[$0, 149] || bitmap[0, $0] || bitmap[149, $0] })
    }

    @Test func tinyImagesAreAPlainSquare() throws {
        let bitmap = try #require(PlaceholderImage(size: 1, colour: .init(red: 1, green: 1, blue: 1))).bitmap()
        #expect(bitmap == Bitmap(width: 1, height: 1))
    }

    @Test func pngIsRecognisedAsAnImage() throws {
        let png = try #require(PlaceholderImage(size: 600, colour: .init(red: 0, green: 0, blue: 255))).png()
        #expect(ImageFormat(sniffing: png) == .png)
        #expect(png.count < 600 * 76 + 1000)  // one bit a pixel
    }

    @Test func aThumbnailIsAFewHundredBytes() throws {
        // The page shows 24 of these on a first load (docs/page.md): stored, each was 3,086 bytes.
        let png = try #require(PlaceholderImage(size: 150, colour: .init(red: 0x92, green: 0xC9, blue: 0x52))).png()
        #expect(png.count < 400)
    }
}
