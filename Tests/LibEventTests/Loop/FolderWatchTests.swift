import Foundation
import TestSupport
import Testing

@testable import LibEvent

/// inotify on a real temporary folder: the ways a file is saved, deleted or replaced, and the folder's end.
@Suite struct FolderWatchTests {
    /// A running loop, a fresh folder and a watch on it that records every call.
    private final class Fixture: Sendable {
        let loop: EventLoop
        let folder: String
        let calls = LockedBox<[Set<String>]>([])
        let gone = LockedBox(0)
        let offLoop = LockedBox(0)
        let watch: FolderWatch

        init() throws {
            loop = try EventLoop(name: "folder-watch")
            loop.run()
            folder = NSTemporaryDirectory() + "folder-watch-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let (loop, calls, gone, offLoop) = (loop, calls, gone, offLoop)
            watch = try FolderWatch(loop: loop, folder: folder) { names in
                if !loop.inLoop { offLoop.mutate { $0 += 1 } }
                calls.mutate { $0.append(names) }
            } onFolderGone: {
                if !loop.inLoop { offLoop.mutate { $0 += 1 } }
                gone.mutate { $0 += 1 }
            }
        }

        deinit {
            watch.cancel()
            loop.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }

        func path(_ name: String) -> String { folder + "/" + name }

        /// Writes `text` into the entry `name` (in place, created if missing).
        func write(_ name: String, _ text: String = "{}") throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path(name)))
        }

        /// Lets what was done so far be reported, then forgets it.
        func forgetCalls() {
            settle()
            calls.value = []
        }

        /// Every name reported so far.
        var reported: Set<String> { calls.value.reduce(into: []) { $0.formUnion($1) } }

        /// Waits until a timer on the loop fired after `seconds`, so anything queued before has been read.
        func settle(_ seconds: Double = 0.1) {
            let fired = LockedBox(false)
            loop.schedule(after: seconds) { fired.value = true }
            _ = eventually { fired.value }
        }
    }

    @Test func aWriteInPlaceIsReportedWhenTheWriterCloses() throws {
        let fixture = try Fixture()
        try fixture.write("db.json")
        #expect(eventually { fixture.reported.contains("db.json") })
        fixture.forgetCalls()
        let handle = try #require(FileHandle(forWritingAtPath: fixture.path("db.json")))
        handle.write(Data("{\"posts\":[]}".utf8))
        fixture.settle()
        #expect(!fixture.reported.contains("db.json"), "reported before the writer closed the file")
        try handle.close()
        #expect(eventually { fixture.reported.contains("db.json") })
        #expect(fixture.offLoop.value == 0)
    }

    @Test func aSaveByRenameReportsBothNamesInOneCall() throws {
        let fixture = try Fixture()
        try fixture.write("db.json")
        try fixture.write(".db.json.swp", "{\"a\":1}")
        fixture.forgetCalls()
        // mv renames (rename(2)) over the old file, as an editor's save does.
        let move = try Process.run(
            URL(fileURLWithPath: "/bin/mv"),
            arguments: ["-f", "-T", fixture.path(".db.json.swp"), fixture.path("db.json")])
        move.waitUntilExit()
        #expect(move.terminationStatus == 0)
        #expect(eventually { fixture.calls.value.contains { $0.isSuperset(of: ["db.json", ".db.json.swp"]) } })
    }

    @Test func aDeletedFileIsReported() throws {
        let fixture = try Fixture()
        try fixture.write("db.json")
        fixture.forgetCalls()
        try FileManager.default.removeItem(atPath: fixture.path("db.json"))
        #expect(eventually { fixture.reported == ["db.json"] })
        #expect(fixture.gone.value == 0)
    }

    @Test func aFileReplacedByAFolderIsReportedAndItsContentsAreNot() throws {
        let fixture = try Fixture()
        try fixture.write("db.json")
        fixture.forgetCalls()
        try FileManager.default.removeItem(atPath: fixture.path("db.json"))
        try FileManager.default.createDirectory(atPath: fixture.path("db.json"), withIntermediateDirectories: false)
        #expect(eventually { fixture.reported == ["db.json"] })
        fixture.forgetCalls()
        // A file inside the new folder is not in the watched folder.
        try fixture.write("db.json/inner.json")
        fixture.settle()
        #expect(fixture.reported.isEmpty)
    }

    @Test func attributeChangesAreReported() throws {
        let fixture = try Fixture()
        try fixture.write("db.json")
        fixture.forgetCalls()
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fixture.path("db.json"))
        #expect(eventually { fixture.reported == ["db.json"] })
    }

    @Test func theFolderGoingAwayIsReportedOnceAndEndsTheWatch() throws {
        let fixture = try Fixture()
        try FileManager.default.removeItem(atPath: fixture.folder)
        #expect(eventually { fixture.gone.value == 1 })
        #expect(eventually { fixture.watch.isStopped })
        try FileManager.default.createDirectory(atPath: fixture.folder, withIntermediateDirectories: false)
        fixture.calls.value = []
        try fixture.write("db.json")
        fixture.settle()
        #expect(fixture.reported.isEmpty)
        #expect(fixture.gone.value == 1)
        #expect(fixture.offLoop.value == 0)
    }

    @Test func aRenamedFolderIsGoneToo() throws {
        let fixture = try Fixture()
        let moved = fixture.folder + "-moved"
        try FileManager.default.moveItem(atPath: fixture.folder, toPath: moved)
        defer { try? FileManager.default.removeItem(atPath: moved) }
        #expect(eventually { fixture.gone.value == 1 })
    }

    @Test func nothingIsReportedAfterCancel() throws {
        let fixture = try Fixture()
        fixture.watch.cancel()
        #expect(fixture.watch.isStopped)
        fixture.settle()
        try fixture.write("db.json")
        try FileManager.default.removeItem(atPath: fixture.folder)
        fixture.settle()
        #expect(fixture.calls.value.isEmpty)
        #expect(fixture.gone.value == 0)
    }

    @Test func aQueueThatOverflowedReportsEveryEntry() throws {
        let fixture = try Fixture()
        let limit = try String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)
        let events = try #require(Int(limit.trimmingCharacters(in: .whitespacesAndNewlines)))
        // The loop is held while more events than the kernel keeps are made, so some are lost.
        let release = DispatchSemaphore(value: 0)
        fixture.loop.execute { release.wait() }
        let names = (0..<(events / 2 + 100)).map { "file-\($0)" }
        for name in names { #expect(FileManager.default.createFile(atPath: fixture.path(name), contents: nil)) }
        release.signal()
        #expect(eventually { fixture.reported.isSuperset(of: names) })
        #expect(fixture.gone.value == 0 && !fixture.watch.isStopped)
    }

    @Test func aMissingFolderOrAFileCannotBeWatched() throws {
        let loop = try EventLoop(name: "folder-watch-errors")
        loop.run()
        defer { loop.stop() }
        let missing = NSTemporaryDirectory() + "folder-watch-missing-" + UUID().uuidString
        #expect { try FolderWatch(loop: loop, folder: missing) { _ in } } throws: { error in
            "\(error)".contains("No such file or directory")
        }
        let file = missing + ".json"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect { try FolderWatch(loop: loop, folder: file) { _ in } } throws: { error in
            "\(error)".contains("Not a directory")
        }
    }
}
