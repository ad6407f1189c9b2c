import Foundation
import Testing

@testable import Storage

/// The user's file replaced whole: content, permissions, links, a full disk, readers racing the writer, and
/// the reads and identities the watcher relies on.
@Suite final class AtomicFileTests {
    private let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "atomic-file-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func path(_ name: String) -> String { folder + "/" + name }

    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    private func permissions(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// The folder's entries, so a temporary file left behind shows.
    private func entries(_ folder: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder))
    }

    @Test func theNewContentIsThereWholeAndNoTemporaryFileIsLeft() throws {
        let file = path("db.json")
        try Data("{\"old\":true}".utf8).write(to: URL(fileURLWithPath: file))
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
        try AtomicFile.replace(file, with: bytes)
        #expect(contents(file) == bytes)
        try AtomicFile.replace(file, with: [])
        #expect(contents(file) == [])
        #expect(try entries(folder) == ["db.json"])
    }

    @Test func aMissingFileIsCreatedWithTheUmasksPermissions() throws {
        let file = path("new.json")
        try AtomicFile.replace(file, with: Array("{}".utf8))
        #expect(contents(file) == Array("{}".utf8))
        #expect(try permissions(file) == 0o666 & ~umaskOfThisProcess())
    }

    @Test(arguments: [0o600, 0o640, 0o664, 0o444])
    func theOriginalsPermissionBitsAreKept(mode: Int) throws {
        let file = path("db.json")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        try AtomicFile.replace(file, with: Array("{\"a\":1}".utf8))
        #expect(try permissions(file) == mode)
        #expect(contents(file) == Array("{\"a\":1}".utf8))
    }

    @Test func aSymbolicLinkStaysAndItsTargetIsReplaced() throws {
        try FileManager.default.createDirectory(atPath: path("real"), withIntermediateDirectories: false)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: path("real/db.json")))
        try FileManager.default.createSymbolicLink(atPath: path("db.json"), withDestinationPath: "real/db.json")
        try AtomicFile.replace(path("db.json"), with: Array("[1]".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path("db.json")) == "real/db.json")
        #expect(contents(path("real/db.json")) == Array("[1]".utf8))
        #expect(try entries(path("real")) == ["db.json"])
    }

    @Test func aMissingFolderIsAnErrorNamingIt() throws {
        let file = path("missing/db.json")
        #expect {
            try AtomicFile.replace(file, with: [1])
        } throws: { error in
            let error = error as? AtomicFileError
            return error?.code == ENOENT && error?.path == path("missing")
                && "\(error!)".hasSuffix("No such file or directory")
        }
    }

    @Test func readersSeeTheOldOrTheNewContentNeverAPart() throws {
        let file = path("db.json")
        let old = [UInt8](repeating: UInt8(ascii: "a"), count: 300_000)
        let new = [UInt8](repeating: UInt8(ascii: "b"), count: 500_000)
        try AtomicFile.replace(file, with: old)
        let done = LockedFlag()
        let torn = LockedFlag()
        let reader = Thread {
            while !done.isSet {
                guard let bytes = FileManager.default.contents(atPath: file) else {
                    torn.set()
                    continue
                }
                if bytes != Data(old) && bytes != Data(new) { torn.set() }
            }
        }
        reader.start()
        for round in 0..<40 { try AtomicFile.replace(file, with: round.isMultiple(of: 2) ? new : old) }
        done.set()
        while !reader.isFinished { usleep(1_000) }
        #expect(!torn.isSet, "a reader saw a missing, empty or partly written file")
    }

    @Test(.enabled(if: SmallDisk.canMount, "mounting a 64 KiB tmpfs needs root (mount -t tmpfs)"))
    func aFullDiskLeavesTheOriginalAndNoTemporaryFile() throws {
        let disk = try SmallDisk(in: folder)
        defer { disk.unmount() }
        let file = disk.path + "/db.json"
        let original = Array(String(repeating: "{\"id\":1}\n", count: 1_000).utf8)
        try AtomicFile.replace(file, with: original)
        #expect {
            try AtomicFile.replace(file, with: [UInt8](repeating: 32, count: 256 * 1024))
        } throws: { error in
            let error = error as? AtomicFileError
            return error?.code == ENOSPC && "\(error!)".contains("No space left on device")
                && error!.path.hasPrefix(disk.path + "/.db.json.livestate-")
        }
        #expect(contents(file) == original)
        #expect(try entries(disk.path) == ["db.json"])
        // The space the failed write took is free again: a write that fits still goes through.
        try AtomicFile.replace(file, with: Array("{}".utf8))
        #expect(contents(file) == Array("{}".utf8))
    }

    @Test func readReturnsTheWholeFileUpToTheLimit() throws {
        let file = path("db.json")
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        #expect(try AtomicFile.read(file, maxBytes: 200_000) == bytes)
        #expect(throws: AtomicFileError("read", file, code: EFBIG)) { try AtomicFile.read(file, maxBytes: 199_999) }
        try Data().write(to: URL(fileURLWithPath: file))
        #expect(try AtomicFile.read(file, maxBytes: 10) == [])
        // A file whose size `stat` does not know is read to its end.
        #expect(try AtomicFile.read("/proc/self/status", maxBytes: 1 << 20).count > 0)
        #expect(throws: AtomicFileError("read", "/proc/self/status", code: EFBIG)) {
            try AtomicFile.read("/proc/self/status", maxBytes: 10)
        }
    }

    @Test func readRefusesWhatIsNotARegularFile() throws {
        #expect(throws: AtomicFileError("read", folder, code: EISDIR)) { try AtomicFile.read(folder, maxBytes: 10) }
        #expect(throws: AtomicFileError("open", path("none"), code: ENOENT)) {
            try AtomicFile.read(path("none"), maxBytes: 10)
        }
        let fifo = path("fifo")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/mkfifo")
        make.arguments = [fifo]
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0)
        #expect(throws: AtomicFileError("read", fifo, code: EINVAL)) { try AtomicFile.read(fifo, maxBytes: 10) }
    }

    @Test func identityTellsAReplacedFileFromTheSameOne() throws {
        let file = path("db.json")
        #expect(AtomicFile.identity(file) == nil)
        try AtomicFile.replace(file, with: Array("{}".utf8))
        let first = try #require(AtomicFile.identity(file))
        #expect(first.isRegularFile && first.size == 2)
        #expect(AtomicFile.identity(file) == first)
        try AtomicFile.replace(file, with: Array("{}".utf8))
        let second = try #require(AtomicFile.identity(file))
        #expect(second.inode != first.inode && second.size == 2)
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
        #expect(AtomicFile.identity(file)?.isRegularFile == false)
    }

    @Test func replaceAnswersTheIdentityOfTheFileItWroteNotOfWhatIsThereAfter() throws {
        let file = path("db.json")
        let written = try #require(try AtomicFile.replace(file, with: Array("{\"a\":1}".utf8)))
        // What the watch will stat at the path while nothing else touched it: the same, ctime after the rename too.
        #expect(AtomicFile.identity(file) == written)
        #expect(written.isRegularFile && written.size == 7)
        // A folder put in its place right after the rename is not the file written.
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
        #expect(AtomicFile.identity(file) != written)
    }

    @Test func replaceAnswersNilAndChangesNothingWhenNoLongerWanted() throws {
        let file = path("db.json")
        try AtomicFile.replace(file, with: Array("{}".utf8))
        let before = AtomicFile.identity(file)
        #expect(try AtomicFile.replace(file, with: [1], stillWanted: { false }) == nil)
        #expect(AtomicFile.identity(file) == before && contents(file) == Array("{}".utf8))
        #expect(try entries(folder) == ["db.json"])
    }

    private func umaskOfThisProcess() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        return try #require(Int(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    }
}

/// A flag shared between the test and its reader thread.
private final class LockedFlag: @unchecked Sendable {
    // NB: @unchecked because every access goes through the lock.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// A 64 KiB tmpfs mounted for one test, so a write runs out of space for real.
private struct SmallDisk {
    let path: String

    /// Whether this process may mount one (root, in a namespace that allows it): tried once.
    static let canMount: Bool = {
        let probe = NSTemporaryDirectory() + "small-disk-probe-" + UUID().uuidString
        guard let disk = try? SmallDisk(in: probe, creating: true) else { return false }
        disk.unmount()
        try? FileManager.default.removeItem(atPath: probe)
        return true
    }()

    init(in parent: String, creating: Bool = false) throws {
        path = parent + (creating ? "" : "/small-disk")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", path]) else {
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    func unmount() {
        _ = Self.run("/bin/umount", [path])
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
