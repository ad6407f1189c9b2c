/// The image behind `/placeholder/{size}/{rrggbb}`: a square of one colour with its size written on it.
///
///     let png = PlaceholderImage(size: 150, colour: RGBColour(hex: "92c952")!).png()
package struct PlaceholderImage: Equatable, Sendable {
    /// The sizes a placeholder may have, in pixels per side.
    package static let sizes = 1...2000

    /// Pixels per side.
    package let size: Int
    /// The background colour; the label uses black or white, whichever contrasts.
    package let colour: RGBColour

    /// A placeholder of a size in `sizes`; nil outside it.
    package init?(size: Int, colour: RGBColour) {
        guard Self.sizes.contains(size) else { return nil }
        self.size = size
        self.colour = colour
    }

    /// The label drawn on the image, as placeholder services write it: `150x150`.
    package var label: String { "\(size)x\(size)" }

    /// The picture as a bitmap: the label centred, at the largest whole scale that fills at most
    /// two thirds of the width; no label when even scale 1 does not fit.
    package func bitmap() -> Bitmap {
        var bitmap = Bitmap(width: size, height: size)
        let textWidth = BitmapFont.width(of: label)
        let scale = min(size * 2 / 3 / textWidth, size / 2 / BitmapFont.glyphHeight)
        guard scale >= 1 else { return bitmap }
        let x = (size - textWidth * scale) / 2
        let y = (size - BitmapFont.glyphHeight * scale) / 2
        BitmapFont.draw(label, at: x, y, scale: scale, into: &bitmap)
        return bitmap
    }

    /// The PNG file of this placeholder.
    package func png() -> [UInt8] {
        PNGEncoder.encode(bitmap(), background: colour, foreground: colour.contrasting)
    }
}
