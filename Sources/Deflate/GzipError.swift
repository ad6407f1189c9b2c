/// Why a gzip member (or a zlib stream) could not be decompressed.
public enum GzipError: Error, Equatable, Sendable {
    /// The bytes are not one valid gzip member or zlib stream (bad header, bad data or a wrong checksum).
    case malformed
    /// The output would be larger than the caller's limit.
    case tooLarge(limit: Int)
    /// libdeflate could not allocate its decompressor.
    case outOfMemory
}
