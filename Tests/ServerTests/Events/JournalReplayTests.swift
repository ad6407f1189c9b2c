import Domain
import Foundation
import Support
import Testing

@testable import HTTP
@testable import Server
@testable import Storage

/// `JournalReplay`: a restarted server's todos events from the SQLite journal, byte for byte and bounded.
@Suite final class JournalReplayTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("todos.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-replay-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The seeds' store after `writes` inserts, with the list after each write.
    private func written(_ writes: Int) throws -> (SQLiteDocumentJournal, [[Todo]]) {
        let store = try SQLiteDocumentJournal(path: path, holding: .items)
        var list = [Todo(id: 1, title: "Buy Milk", completed: false)]
        var lists: [[Todo]] = []
        for n in 0..<writes {
            let todo = Todo(id: n + 2, title: "Write number \(n)", completed: n % 2 == 0)
            _ = try store.commit([JournalWrite(changes: [JournalChange(.upsert(todo))])])
            list.append(todo)
            lists.append(list)
        }
        return (store, lists)
    }

    @Test func eachEventIsTheListAfterItsEntryWithTheEntrysId() throws {
        let (store, lists) = try written(4)
        let records = JournalReplay.records(
            try store.recent(limit: 10, bytes: 1 << 30), current: lists.last ?? [], count: 10, bytes: 1 << 20)
        #expect(records.map(\.record.id) == (1...4).map { UInt64(store.startSeq + Int64($0)) * 65536 })
        #expect(try records.map(\.json) == lists.map { try JSONCoding.encode($0) })
        #expect(
            String(decoding: records[1].record.frame(diff: true).bytes, as: UTF8.self).contains(
                #"data: {"deleted":[],"inserted":[{"completed":false,"id":3,"title":"Write number 1"}],"updated":[]}"#))
    }

    @Test func theWalkStopsAtTheLogsBoundsKeepingTheNewest() throws {
        let (store, lists) = try written(8)
        let current = lists.last ?? []
        let entries = try store.recent(limit: 10, bytes: 1 << 30)
        let all = JournalReplay.records(entries, current: current, count: 10, bytes: 1 << 20)
        #expect(
            JournalReplay.records(entries, current: current, count: 3, bytes: 1 << 20).map(\.record.id)
                == all.suffix(3).map(\.record.id))
        let bytes = all.suffix(2).reduce(0) { $0 + $1.record.byteCount }
        let bounded = JournalReplay.records(entries, current: current, count: 10, bytes: bytes)
        #expect(bounded.map(\.record.id) == all.suffix(2).map(\.record.id))
        // The newest always, even alone over the bound.
        #expect(JournalReplay.records(entries, current: current, count: 10, bytes: 1).count == 1)
    }
}
