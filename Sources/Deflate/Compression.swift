import CDeflate

/// The two framings of deflate data that LiveState writes, with libdeflate's functions for each: one
/// compress/decompress loop serves both, since they differ only in header and trailer.
enum Framing {
    /// RFC 1952: gzip members, as `Content-Encoding: gzip` carries them.
    case gzip
    /// RFC 1950: zlib streams, as a PNG's IDAT chunks hold them.
    case zlib

    /// `bytes` in this framing at libdeflate `level` (0–12); nil when libdeflate could not allocate.
    func compress(_ bytes: [UInt8], level: Int32) -> [UInt8]? {
        precondition((0...12).contains(level), "libdeflate compresses at levels 0 to 12")
        guard let compressor = libdeflate_alloc_compressor(level) else { return nil }
        defer { libdeflate_free_compressor(compressor) }
        let bound =
            switch self {
            case .gzip: libdeflate_gzip_compress_bound(compressor, bytes.count)
            case .zlib: libdeflate_zlib_compress_bound(compressor, bytes.count)
            }
        var output = [UInt8](repeating: 0, count: bound)
        let written = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                switch self {
                case .gzip:
                    libdeflate_gzip_compress(compressor, input.baseAddress, input.count, out.baseAddress, out.count)
                case .zlib:
                    libdeflate_zlib_compress(compressor, input.baseAddress, input.count, out.baseAddress, out.count)
                }
            }
        }
        // NB: 0 means "did not fit", which the bound rules out; treat it as a failure all the same.
        guard written > 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// The data of one member/stream in this framing, refusing more than `limit` bytes of output.
    func decompress(_ bytes: [UInt8], limit: Int) throws(GzipError) -> [UInt8] {
        guard let decompressor = libdeflate_alloc_decompressor() else { throw .outOfMemory }
        defer { libdeflate_free_decompressor(decompressor) }
        // The input size times four is a first guess for the buffer, never trusted past `limit`.
        var capacity = min(limit, max(64, bytes.count * 4))
        while true {
            var output = [UInt8](repeating: 0, count: capacity)
            var produced = 0
            let result = bytes.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    switch self {
                    case .gzip:
                        libdeflate_gzip_decompress(
                            decompressor, input.baseAddress, input.count, out.baseAddress, out.count, &produced)
                    case .zlib:
                        libdeflate_zlib_decompress(
                            decompressor, input.baseAddress, input.count, out.baseAddress, out.count, &produced)
                    }
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
