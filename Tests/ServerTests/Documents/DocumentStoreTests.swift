import Dispatch
import Domain
import Foundation
import HTTP
import Storage
import StrictJSON
import Synchronization
import TestSupport
import Testing

@testable import Server

/// `DocumentStore` on a real SQLite journal file: a write is answered once committed, what was answered is in
/// the journal after a restart, a keyed write sent again is answered from its entry, and a journal that
/// fails refuses writes with storage's answer and changes nothing.
@Suite struct DocumentStoreTests {
    /// A folder of its own for one test's journal, removed at the end.
    private final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-store-\(UUID())")
        var journal: String { url.appendingPathComponent("db.json.livestate").path }

        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// What a route hands the store: a plan, given the batch's view.
    private typealias Planning = @Sendable (inout DocumentView) throws(HTTPError) -> DocumentStore.Plan

    private static func post(_ id: Int64, _ title: String) -> StoredDocument {
        StoredDocument(
            id: DocumentID(.integer(id)), object: JSONObject(["id": .integer(id), "title": .string(title)]))
    }

    /// The file's items at start: posts 1 and 2.
    private static let start = [post(1, "one"), post(2, "two")]

    /// A store serving `posts` as the file held them at start with the entries of `folder`'s journal put
    /// back on top, as a start after `kill -9` does.
    private static func store(in folder: Folder, maxFileSize: Int = DocumentStore.defaultMaxFileSize) throws
        -> DocumentStore
    {
        let journal = try reopening(folder.journal)
        let entries = try journal.entries(after: 0)
        let store = DocumentStore(
            resources: [DocumentResource(name: "posts", kind: .collection, documents: start)], journal: journal,
            appliedSeq: 0, idField: "id", foreignKeySuffix: "Id", maxFileSize: maxFileSize)
        store.replay(entries)
        return store
    }

    /// The journal at `path`, waiting up to 10 s while a store released just before still holds it: its last
    /// answer is sent from its commit thread, which lets the store go a moment later.
    private static func reopening(_ path: String) throws -> SQLiteDocumentJournal {
        let deadline = Date().addingTimeInterval(10)
        while true {
            do {
                return try SQLiteDocumentJournal(path: path)
            } catch {
                guard error.description.contains("is in use"), Date() < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// Submits `plan` and waits for its answer (the store commits on its own thread).
    private static func submit(
        _ store: DocumentStore, keyed: DocumentStore.Keyed? = nil,
        _ plan: @escaping Planning
    ) throws -> Response {
        let answer = Mutex<Response?>(nil)
        let answered = DispatchSemaphore(value: 0)
        store.submit(plan, keyed: keyed) { response in
            answer.withLock { $0 = response }
            answered.signal()
        }
        try #require(answered.wait(timeout: .now() + 10) == .success)
        return try #require(answer.withLock { $0 })
    }

    /// A plan that adds a post titled `title` under the next id and answers it with 201.
    private static func adding(_ title: String) -> Planning {
        { view throws(HTTPError) in
            let id = try view.newID(in: "posts", requested: nil)
            let post = JSONObject(["id": id.value, "title": .string(title)])
            return .init(
                entries: [.init(resource: "posts", id: id, document: post)],
                response: Response(status: 201, body: post.compactBytes))
        }
    }

    /// A plan that asks for id 1, which post 1 holds (409).
    private static let takingID1: Planning = {
        view throws(HTTPError) in
        _ = try view.newID(in: "posts", requested: .integer(1))
        return .init(entries: [], response: .noContent)
    }

    private static func titles(_ store: DocumentStore) -> [String] {
        store.byName["posts"]?.items.documents.compactMap {
            if case .string(let title)? = $0.object["title"] { title } else { nil }
        } ?? []
    }

    @Test func aWriteIsServedOnceAnsweredAndKeptAcrossARestart() throws {
        let folder = try Folder()
        do {
            let store = try Self.store(in: folder)
            let created = try Self.submit(store, Self.adding("three"))
            #expect(created.status == 201)
            #expect(String(decoding: created.body, as: UTF8.self) == #"{"id":3,"title":"three"}"#)
            // Answered only once applied: the item is served by the time the answer is.
            #expect(Self.titles(store) == ["one", "two", "three"])
            let deleted = try Self.submit(store) { _ throws(HTTPError) in
                .init(
                    entries: [.init(resource: "posts", id: DocumentID(.integer(1)), document: nil)],
                    response: .noContent)
            }
            #expect(deleted.status == 204)
            #expect(Self.titles(store) == ["two", "three"])
        }
        // A new store on the same journal file (the first one released it) serves what was answered.
        let restarted = try Self.store(in: folder)
        #expect(Self.titles(restarted) == ["two", "three"])
        #expect(try Self.submit(restarted, Self.adding("four")).body == Array(#"{"id":4,"title":"four"}"#.utf8))
    }

    @Test func aPlanThatThrowsIsAnsweredItsErrorAndLeavesNothingWhileTheOthersCommit() throws {
        let folder = try Folder()
        let store = try Self.store(in: folder)
        let answers = Mutex<[Int: Int]>([:])
        let done = DispatchSemaphore(value: 0)
        // Sent at once, so that several share a batch: the refused one leaves no trace in the others' ids.
        for index in 0..<8 {
            store.submit(index == 3 ? Self.takingID1 : Self.adding("new \(index)")) { response in
                answers.withLock { $0[index] = response.status }
                done.signal()
            }
        }
        for _ in 0..<8 { try #require(done.wait(timeout: .now() + 10) == .success) }
        #expect(answers.withLock { $0[3] } == 409)
        #expect(answers.withLock { $0.filter { $0.value == 201 }.count } == 7)
        #expect(Self.titles(store) == ["one", "two"] + [0, 1, 2, 4, 5, 6, 7].map { "new \($0)" })
        #expect(store.byName["posts"]?.items.documents.compactMap { $0.id?.key } == (1...9).map(String.init))
    }

    @Test func aKeyedWriteSentAgainIsAnsweredFromItsEntryAlsoAfterARestart() throws {
        let folder = try Folder()
        let plans = Mutex(0)
        let keyed = DocumentStore.Keyed(key: WriteKey(key: "retry-1", request: "POST /posts")) { change in
            Response(status: 201, body: Array((change.document ?? "").utf8))
        }
        let counted: Planning = {
            view throws(HTTPError) in
            plans.withLock { $0 += 1 }
            return try Self.adding("retried")(&view)
        }
        let first: Response
        do {
            let store = try Self.store(in: folder)
            first = try Self.submit(store, keyed: keyed, counted)
            #expect(first.status == 201)
            let again = try Self.submit(store, keyed: keyed, counted)
            #expect(again.status == 201 && again.body == first.body)
            #expect(Self.titles(store) == ["one", "two", "retried"])
        }
        let restarted = try Self.store(in: folder)
        let afterRestart = try Self.submit(restarted, keyed: keyed, counted)
        #expect(afterRestart.status == 201 && afterRestart.body == first.body)
        #expect(Self.titles(restarted) == ["one", "two", "retried"])
        #expect(plans.withLock { $0 } == 1)
        // The key sent with another request: refused, nothing planned or changed.
        let other = DocumentStore.Keyed(key: WriteKey(key: "retry-1", request: "PATCH /posts/1")) { _ in .noContent }
        let reused = try Self.submit(restarted, keyed: other, counted)
        #expect(reused.status == 422)
        #expect(try ErrorBody(reused).error == "idempotency_key_reused")
        #expect(plans.withLock { $0 } == 1)
    }

    @Test func aJournalChangedUnderTheStoreRefusesWritesWithStoragesAnswerAndChangesNothing() throws {
        let folder = try Folder()
        let store = try Self.store(in: folder)
        #expect(try Self.submit(store, Self.adding("kept")).status == 201)
        // Another program truncates the journal under the running store.
        try #require(truncate(folder.journal, 0) == 0)
        for title in ["lost 1", "lost 2"] {
            let refused = try Self.submit(store, Self.adding(title))
            #expect(refused.status == 503)
            #expect(try ErrorBody(refused).error == "storage_unavailable")
        }
        #expect(Self.titles(store) == ["one", "two", "kept"])
    }

    @Test func aWritePastTheFileLimitIs507AndADeleteStillPasses() throws {
        let folder = try Folder()
        let size = DocumentResource(name: "posts", kind: .collection, documents: Self.start).fileSize
        let store = try Self.store(in: folder, maxFileSize: size + 100)
        let large = try Self.submit(store, Self.adding(String(repeating: "x", count: 200)))
        #expect(large.status == 507)
        #expect(try ErrorBody(large).error == "data_file_full")
        #expect(Self.titles(store) == ["one", "two"])
        let deleted = try Self.submit(store) { _ throws(HTTPError) in
            .init(entries: [.init(resource: "posts", id: DocumentID(.integer(2)), document: nil)], response: .noContent)
        }
        #expect(deleted.status == 204)
        #expect(Self.titles(store) == ["one"])
    }
}
