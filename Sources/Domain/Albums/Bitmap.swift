/// A width×height grid of on/off pixels, the canvas of a placeholder image, packed as PNG wants it: each
/// row in `(width + 7) / 8` bytes, eight pixels a byte, the leftmost in the most significant bit.
package struct Bitmap: Equatable, Sendable {
    /// Pixels per row.
    package let width: Int
    /// Rows.
    package let height: Int
    /// Bytes per packed row.
    package let rowBytes: Int
    /// The packed rows, top first.
    package private(set) var packed: [UInt8]

    /// An all-clear bitmap.
    package init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "a bitmap needs at least one pixel")
        self.width = width
        self.height = height
        rowBytes = (width + 7) / 8
        packed = Array(repeating: 0, count: rowBytes * height)
    }

    /// Whether the pixel at (x, y) is set; (0, 0) is the top-left corner.
    package subscript(x: Int, y: Int) -> Bool {
        get { packed[y * rowBytes + x / 8] & Self.mask(x) != 0 }
        set {
            if newValue {
                packed[y * rowBytes + x / 8] |= Self.mask(x)
            } else {
                packed[y * rowBytes + x / 8] &= ~Self.mask(x)
            }
        }
    }

    /// Sets every pixel of the rectangle, clipped to the bitmap.
    package mutating func fill(x: Int, y: Int, width w: Int, height h: Int) {
        for row in max(0, y)..<min(height, y + h) {
            for column in max(0, x)..<min(width, x + w) {
                self[column, row] = true
            }
        }
    }

    private static func mask(_ x: Int) -> UInt8 {
        0x80 >> UInt8(x % 8)
    }
}
