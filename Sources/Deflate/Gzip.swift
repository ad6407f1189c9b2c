import CDeflate

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
        precondition((0...12).contains(level), "libdeflate compresses at levels 0 to 12")
        guard let compressor = libdeflate_alloc_compressor(level) else { return nil }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_gzip_compress_bound(compressor, bytes.count)
        var output = [UInt8](repeating: 0, count: bound)
        let written = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                libdeflate_gzip_compress(compressor, input.baseAddress, input.count, out.baseAddress, out.count)
            }
        }
        // NB: 0 means "did not fit", which the bound rules out; treat it as a failure all the same.
        guard written > 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// The bytes of one gzip member, refusing more than `limit` bytes of output.
    public static func decompress(_ bytes: [UInt8], limit: Int) throws(GzipError) -> [UInt8] {
        guard let decompressor = libdeflate_alloc_decompressor() else { throw .outOfMemory }
        defer { libdeflate_free_decompressor(decompressor) }
        // gzip's trailer holds the size modulo 2^32: a hint for the buffer, never trusted past `limit`.
        var capacity = min(limit, max(64, bytes.count * 4))
        while true {
            var output = [UInt8](repeating: 0, count: capacity)
            var produced = 0
            let result = bytes.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    libdeflate_gzip_decompress(
                        decompressor, input.baseAddress, input.count, out.baseAddress, out.count, &produced)
                }
            }
            switch result {
            case LIBDEFLATE_SUCCESS:
                output.removeSubrange(produced...)
                return output
            case LIBDEFLATE_INSUFFICIENT_SPACE where capacity < limit:
                capacity = min(limit, capacity * 2)
            case LIBDEFLATE_INSUFFICIENT_SPACE:
                throw .tooLarge(limit: limit)
            default:
                throw .malformed
            }
        }
    }
}
