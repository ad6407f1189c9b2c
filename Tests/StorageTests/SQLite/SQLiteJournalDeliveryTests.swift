import Dispatch
import Domain
import Foundation
import Synchronization
import Testing

@testable import Storage

/// `SQLiteJournal`'s two locks: a commit does not wait for another write's delivery (the view models,
/// encoding, `/events`), entries still reach the handler in id order, and a write is answered only once
/// its entry is applied.
@Suite final class SQLiteJournalDeliveryTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("todos.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-delivery-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func aSlowDeliveryDoesNotHoldAnotherWritesCommit() throws {
        let journal = try SQLiteJournal(path: path)
        let release = DispatchSemaphore(value: 0)
        let handed = Mutex<[Int64]>([])
        let firstHanded = DispatchSemaphore(value: 0)
        journal.follow(after: journal.start().lastSeq) { entries in
            let isFirst = handed.withLock { seqs in
                defer { seqs += entries.map(\.seq) }
                return seqs.isEmpty
            }
            // The first delivery stands still until the test lets it go.
            if isFirst {
                firstHanded.signal()
                release.wait()
            }
        }
        let answers = Mutex<[String: Int64]>([:])
        let group = DispatchGroup()
        for title in ["slow delivery", "second write"] {
            if title == "second write" { #expect(firstHanded.wait(timeout: .now() + 10) == .success) }
            DispatchQueue.global().async(group: group) {
                journal.write(.insert(title: title, completed: false), key: nil) { result in
                    let applied = handed.withLock { $0.last ?? 0 }
                    answers.withLock { $0[title] = applied }
                }
            }
        }
        // The second write commits (another connection sees it) while the first delivery still stands.
        let other = try SQLiteConnection(path: path)
        let deadline = Date().addingTimeInterval(10)
        var committed = false
        while !committed && Date() < deadline {
            committed = try other.query("SELECT id FROM todos WHERE title = ?", [.text("second write")]).count == 1
            if !committed { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(committed)
        // Neither is answered before its entry is applied.
        #expect(answers.withLock { $0.isEmpty })
        release.signal()
        #expect(group.wait(timeout: .now() + 10) == .success)
        let seqs = handed.withLock { $0 }
        #expect(seqs == seqs.sorted() && seqs.count == 2)
        #expect(answers.withLock { $0["second write"] } == seqs.last)
    }
}
