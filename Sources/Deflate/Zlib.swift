/// Whole-buffer zlib streams (RFC 1950) through libdeflate: the framing a PNG's image data uses.
///
/// ```swift
/// let stream = Zlib.compress(scanlines)              // nil only when libdeflate cannot allocate
/// let back = try Zlib.decompress(stream!, limit: scanlines.count)
/// ```
public enum Zlib {
    /// libdeflate's levels run 0 (store) to 12; 9 is zlib's best, cheap for the small images it packs.
    public static let defaultLevel: Int32 = 9

    /// `bytes` as one zlib stream; nil when libdeflate could not allocate its compressor.
    public static func compress(_ bytes: [UInt8], level: Int32 = defaultLevel) -> [UInt8]? {
        Framing.zlib.compress(bytes, level: level)
    }

    /// The bytes of one zlib stream, refusing more than `limit` bytes of output (errors as for gzip).
    public static func decompress(_ bytes: [UInt8], limit: Int) throws(GzipError) -> [UInt8] {
        try Framing.zlib.decompress(bytes, limit: limit)
    }
}
