import Foundation

/// The hash builds before the CRC-32 fingerprint marked a data file's journal with: FNV-1a over the bytes,
/// as 16 hex digits.
///
/// Invariant: used only at start, when a journal's mark is of this form, to tell whether the file is as
/// the older build left it; the mark is then written again in today's form, so the file is read a second
/// time once per journal, on its first start after the upgrade. Without it an upgrade took every file as
/// edited while stopped: the events a clean stop saved were dropped and the entries put back after
/// `kill -9` made no events again.
enum DataFileLegacyHash {
    /// Whether `mark` has the older form (16 lowercase hex digits, 0-9 and a-f; today's fingerprint holds
    /// dashes).
    static func isLegacy(_ mark: String) -> Bool {
        mark.utf8.count == 16 && mark.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Whether the file at `path` hashes to the older-form `mark` (false when unreadable).
    static func matches(_ mark: String, path: String) -> Bool {
        guard isLegacy(mark), let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        // NB: a part at a time, so the check holds 1 MiB beside the loaded file, not a second copy of it.
        while let part = try? file.read(upToCount: 1 << 20), !part.isEmpty {
            for byte in part {
                value ^= UInt64(byte)
                value &*= 0x100_0000_01b3
            }
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits == mark
    }
}
