/// A width×height grid of on/off pixels, the canvas of a placeholder image.
package struct Bitmap: Equatable, Sendable {
    /// Pixels per row.
    package let width: Int
    /// Rows.
    package let height: Int
    private var pixels: [Bool]

    /// An all-clear bitmap.
    package init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "a bitmap needs at least one pixel")
        self.width = width
        self.height = height
        pixels = Array(repeating: false, count: width * height)
    }

    /// Whether the pixel at (x, y) is set; (0, 0) is the top-left corner.
    package subscript(x: Int, y: Int) -> Bool {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// Sets every pixel of the rectangle, clipped to the bitmap.
    package mutating func fill(x: Int, y: Int, width w: Int, height h: Int) {
        for row in max(0, y)..<min(height, y + h) {
            for column in max(0, x)..<min(width, x + w) {
                self[column, row] = true
            }
        }
    }
}
