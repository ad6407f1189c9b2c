/// An opaque 8-bit sRGB colour, as written in a placeholder URL (`ff8800`).
package struct RGBColour: Equatable, Hashable, Sendable {
    /// Red, 0...255.
    package var red: UInt8
    /// Green, 0...255.
    package var green: UInt8
    /// Blue, 0...255.
    package var blue: UInt8

    /// A colour from its three channels.
    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses exactly six hexadecimal digits (`rrggbb`, either case, no `#`); nil for anything else.
    ///
    ///     RGBColour(hex: "ff8800") // red 255, green 136, blue 0
    package init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 6 else { return nil }
        var channels: [UInt8] = []
        for index in stride(from: 0, to: 6, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            channels.append(high << 4 | low)
        }
        self.init(red: channels[0], green: channels[1], blue: channels[2])
    }

    /// Black or white, whichever reads better on this colour (ITU-R BT.601 luma).
    package var contrasting: RGBColour {
        let luma = 299 * Int(red) + 587 * Int(green) + 114 * Int(blue)
        return luma > 128_000 ? RGBColour(red: 0, green: 0, blue: 0) : RGBColour(red: 255, green: 255, blue: 255)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
