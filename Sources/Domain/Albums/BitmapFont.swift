/// A 3×5 pixel font with the characters a placeholder label needs: digits and `x`.
package enum BitmapFont {
    /// Glyph width in font pixels.
    package static let glyphWidth = 3
    /// Glyph height in font pixels.
    package static let glyphHeight = 5
    /// Horizontal distance from one glyph to the next, in font pixels (one pixel of spacing).
    package static let advance = 4

    /// Rows of each glyph, top first, the three low bits of each row left to right.
    private static let glyphs: [Character: [UInt8]] = [
        "0": [0b111, 0b101, 0b101, 0b101, 0b111],
        "1": [0b010, 0b110, 0b010, 0b010, 0b111],
        "2": [0b111, 0b001, 0b111, 0b100, 0b111],
        "3": [0b111, 0b001, 0b111, 0b001, 0b111],
        "4": [0b101, 0b101, 0b111, 0b001, 0b001],
        "5": [0b111, 0b100, 0b111, 0b001, 0b111],
        "6": [0b111, 0b100, 0b111, 0b101, 0b111],
        "7": [0b111, 0b001, 0b001, 0b001, 0b001],
        "8": [0b111, 0b101, 0b111, 0b101, 0b111],
        "9": [0b111, 0b101, 0b111, 0b001, 0b111],
        "x": [0b000, 0b101, 0b010, 0b101, 0b000],
    ]

    /// Width of `text` in font pixels (no trailing spacing).
    package static func width(of text: String) -> Int {
        text.isEmpty ? 0 : text.count * advance - 1
    }

    /// Draws `text` with its top-left corner at (x, y), each font pixel a `scale`×`scale` square.
    /// Characters without a glyph are left blank.
    package static func draw(_ text: String, at x: Int, _ y: Int, scale: Int, into bitmap: inout Bitmap) {
        for (index, character) in text.enumerated() {
            guard let rows = glyphs[character] else { continue }
            let left = x + index * advance * scale
            for (row, bits) in rows.enumerated() {
                for column in 0..<glyphWidth where bits & (0b100 >> UInt8(column)) != 0 {
                    bitmap.fill(x: left + column * scale, y: y + row * scale, width: scale, height: scale)
                }
            }
        }
    }
}
