import Foundation

/// A data file that is itself a mount point: a container given one file (`docker run -v
/// "$PWD/db.json":/data/db.json`) rather than its folder. The server writes the file back by writing a new
/// file beside it and renaming it over the old one (so no reader sees it half-written), and a mount point
/// cannot be renamed over (`EBUSY`): every write-back would fail. So a start that would write the file back
/// refuses such a file, with one line that says to mount the folder.
///
/// ```swift
/// DataFileMount.isMountPoint("/data/db.json", mountinfo: text)   // true when a line mounts exactly it
/// ```
enum DataFileMount {
    /// Refuses `path` when it is a mount point of this process (read from `/proc/self/mountinfo`).
    static func refuseSingleFile(_ path: String) throws(DataFileError) {
        guard let mountinfo = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard isMountPoint(resolved, mountinfo: mountinfo) else { return }
        throw DataFileError(
            "\(path) is mounted as a single file (docker run -v FILE:\(resolved)); the server replaces the file"
                + " whole on each write-back, which a mounted file cannot take: mount its folder instead"
                + " (-v \"$PWD\":/data … /data/\(resolved.split(separator: "/").last ?? "db.json"))")
    }

    /// Whether a line of `mountinfo` (the format of `/proc/self/mountinfo`) has `path` as its mount point.
    static func isMountPoint(_ path: String, mountinfo: String) -> Bool {
        mountinfo.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            return fields.count > 4 && unescaped(fields[4]) == path
        }
    }

    /// A mountinfo field with its octal escapes (`\040` a space, `\011` a tab, `\012` a newline, `\134` a
    /// backslash) read back.
    private static func unescaped(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        let utf8 = Array(field.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count,
                let value = UInt8(String(decoding: utf8[(index + 1)...(index + 3)], as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
