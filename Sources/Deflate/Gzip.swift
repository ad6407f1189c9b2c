/// Whole-buffer gzip (RFC 1952) through libdeflate.
///
/// A body is compressed once per change and then sent to many clients, so the compressor works on the
/// whole buffer at once (libdeflate has no streaming mode, and needs none here).
///
/// ```swift
/// let packed = Gzip.compress(Array(json.utf8))      // nil only when libdeflate cannot allocate
/// let bytes = try Gzip.decompress(packed!, limit: 1 << 20)
/// ```
public enum Gzip {
    /// libdeflate's levels run 0 (store) to 12; 6 is zlib's default, a good trade for JSON.
    public static let defaultLevel: Int32 = 6

    /// `bytes` as one gzip member; nil when libdeflate could not allocate its compressor.
    public static func compress(_ bytes: [UInt8], level: Int32 = defaultLevel) -> [UInt8]? {
        Framing.gzip.compress(bytes, level: level)
    }

    /// The bytes of one gzip member, refusing more than `limit` bytes of output.
    public static func decompress(_ bytes: [UInt8], limit: Int) throws(GzipError) -> [UInt8] {
        try Framing.gzip.decompress(bytes, limit: limit)
    }
}
