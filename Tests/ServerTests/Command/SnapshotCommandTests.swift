import Foundation
import Testing

@testable import Server

/// json-server's `s` + Enter: which lines are the command, and how the snapshot's path is logged.
@Suite struct SnapshotCommandTests {
    @Test(arguments: ["s", "S", "  s ", "s\r", "\ts"])
    func theCommandIsTheLetterAlone(line: String) {
        #expect(SnapshotCommand.isSnapshot(Array(line.utf8)))
    }

    @Test(arguments: ["", "ss", "x", "snapshot", "s s", "é"])
    func otherLinesAreNoCommand(line: String) {
        #expect(!SnapshotCommand.isSnapshot(Array(line.utf8)))
    }

    @Test func aSnapshotInsideTheWorkingFolderIsNamedFromIt() {
        let here = FileManager.default.currentDirectoryPath
        #expect(SnapshotCommand.relative(here + "/db-1.json") == "db-1.json")
        #expect(SnapshotCommand.relative(here + "/snaps/../db-2.json") == "db-2.json")
        #expect(SnapshotCommand.relative(here) == ".")
        #expect(SnapshotCommand.relative("/nowhere-else/db-3.json") == "/nowhere-else/db-3.json")
    }
}
