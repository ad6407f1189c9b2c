import CDeflate

/// libdeflate's CRC-32 and Adler-32 (vectorised): cheap content fingerprints of whole bodies.
///
/// ```swift
/// let tag = Checksum.fingerprint(bytes)  // e.g. "1c291ca3-04d50eb5-b0d7a"
/// ```
public enum Checksum {
    /// The CRC-32 (as gzip's trailer holds it) of `bytes`; given `earlier`, the CRC-32 of the bytes whose
    /// CRC-32 it is followed by `bytes` (a text checked a part at a time).
    public static func crc32(_ bytes: [UInt8], after earlier: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { UInt32(libdeflate_crc32(earlier, $0.baseAddress, $0.count)) }
    }

    /// The Adler-32 (as zlib's trailer holds it) of `bytes`; given `earlier`, that of the bytes whose
    /// Adler-32 it is followed by `bytes`.
    public static func adler32(_ bytes: [UInt8], after earlier: UInt32 = 1) -> UInt32 {
        bytes.withUnsafeBytes { UInt32(libdeflate_adler32(earlier, $0.baseAddress, $0.count)) }
    }

    /// CRC-32, Adler-32 and the length of `bytes` in hex: two independent checksums plus the size, so two
    /// different bodies practically never share a fingerprint (an entity tag, not a security check).
    public static func fingerprint(_ bytes: [UInt8]) -> String {
        fingerprint(crc32: crc32(bytes), adler32: adler32(bytes), count: bytes.count)
    }

    /// The fingerprint of `count` bytes whose CRC-32 and Adler-32 these are (worked out a part at a time).
    public static func fingerprint(crc32: UInt32, adler32: UInt32, count: Int) -> String {
        "\(hex(crc32))-\(hex(adler32))-\(String(count, radix: 16))"
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
