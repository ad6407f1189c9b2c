import Dispatch
import Domain
import Foundation
import HTTP
import LibEvent
import Storage
import StrictJSON
import Synchronization
import TestSupport
import Testing

@testable import Server

/// A plan's download claim (`DocumentStore.Plan.claim`) reaches a journal several servers share: on a real
/// PostgreSQL, the server whose store committed a selection with its claim holds it; without it, none is held.
@Suite(.serialized, .enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct DocumentStoreClaimTests {
    /// Commits the selection `url` through `store`, claimed when `claim`; its journal id.
    private func select(_ url: String, through store: DocumentStore, claim: Bool) throws -> Int64 {
        let seq = Mutex<Int64?>(nil)
        let answered = DispatchSemaphore(value: 0)
        store.submit({ _ throws(HTTPError) in
            .init(
                entries: [.init(resource: "selection", id: nil, document: JSONObject(["url": .string(url)]))],
                response: .noContent,
                answer: { seqs in
                    seq.withLock { $0 = seqs.first }
                    return .noContent
                }, claim: claim)
        }) { _ in answered.signal() }
        try #require(answered.wait(timeout: .now() + 10) == .success)
        return try #require(seq.withLock { $0 })
    }

    /// `journal.claim`, waited for.
    private func claim(_ journal: PostgresDocumentJournal, _ seq: Int64) -> Bool {
        let answer = Mutex<Bool?>(nil)
        journal.claim(seq, outcome: "image of selection \(seq)") { taken in answer.withLock { $0 = taken } }
        #expect(eventually { answer.withLock { $0 } != nil })
        return answer.withLock { $0 } ?? false
    }

    @Test func aPlansClaimIsTakenWithItsCommit() throws {
        let uri = try PostgresTestDatabase.fresh("claims")
        let rows = [DocumentRows(name: "selection", kind: .singular, items: [])]
        let mine = try PostgresDocumentJournal(uri: uri, dataSet: .seeds)
        let other = try PostgresDocumentJournal(uri: uri, dataSet: .seeds)
        defer {
            mine.stop()
            other.stop()
        }
        let start = try mine.start(source: "seeds") { rows }
        _ = try other.start(source: "seeds") { rows }
        let store = DocumentStore(
            resources: [], others: [DocumentResource(name: "selection", kind: .singular, documents: [])],
            journal: mine, appliedSeq: start.seq, idField: "id", foreignKeySuffix: "Id")
        let claimed = try select("a", through: store, claim: true)
        #expect(!claim(other, claimed))
        let unclaimed = try select("b", through: store, claim: false)
        #expect(claim(other, unclaimed))
    }
}
