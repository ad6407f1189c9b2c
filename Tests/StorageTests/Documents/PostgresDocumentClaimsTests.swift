import Dispatch
import Domain
import Foundation
import TestSupport
import Testing

@testable import Storage

/// Download claims on a document database several servers share (`DocumentDownloadClaims`), each journal as
/// one server: the server that commits a selection holds its claim until its connection ends or it gives it
/// back, and no one takes it once the outcome is committed.
@Suite(.serialized, .enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct PostgresDocumentClaimsTests {
    private let resources = [DocumentRows(name: "selection", kind: .singular, items: [])]

    /// Two journals of the seeds on a new database, started.
    private func servers(_ database: DocumentDatabase) throws -> [(PostgresDocumentJournal, Int64)] {
        try (0..<2).map { _ in
            let journal = try PostgresDocumentJournal(uri: database.uri, dataSet: .seeds)
            return (journal, try journal.start(source: "seeds") { resources }.seq)
        }
    }

    private func select(_ url: String, on journal: PostgresDocumentJournal, after seq: Int64, claim: Bool) throws
        -> Int64
    {
        let change = JournalChange(collection: "selection", id: nil, document: #"{"url":"\#(url)"}"#)
        let key = WriteKey(key: WriteKey.serverMade(), request: "POST /albums/selection")
        let seqs = try journal.commitBatch(after: seq, keys: [], until: .now() + 5) { _, _ in
            [JournalWrite(changes: [change], key: key, claim: claim)]
        }
        return try #require(seqs.first)
    }

    /// `journal.claim`, waited for.
    private func claim(_ journal: PostgresDocumentJournal, _ seq: Int64) -> Bool {
        let answer = LockedBox<Bool?>(nil)
        journal.claim(seq, outcome: "image of selection \(seq)") { answer.value = $0 }
        #expect(eventually { answer.value != nil })
        return answer.value ?? false
    }

    @Test func theCommitterHoldsTheClaimUntilItsConnectionEnds() throws {
        let database = try DocumentDatabase()
        let started = try servers(database)
        let (first, second) = (started[0].0, started[1].0)
        defer { second.stop() }
        let seq = try select("a", on: first, after: started[0].1, claim: true)
        #expect(!claim(second, seq))
        // The committer is gone (its connection ended): PostgreSQL frees the claim, and another server takes it.
        first.stop()
        #expect(eventually { claim(second, seq) })
        // Once the outcome is committed under its key, no server takes the claim again.
        second.unclaim(seq)
        let outcome = JournalChange(collection: "image", id: nil, document: #"{"selection":\#(seq)}"#)
        _ = try second.commitBatch(after: seq, keys: [], until: .now() + 5) { _, _ in
            [JournalWrite(changes: [outcome], key: WriteKey(key: "image of selection \(seq)", request: "image"))]
        }
        let third = try PostgresDocumentJournal(uri: database.uri, dataSet: .seeds)
        defer { third.stop() }
        _ = try third.start(source: "seeds") { resources }
        #expect(!claim(third, seq))
    }

    @Test func aClaimGivenBackOrNeverTakenIsFree() throws {
        let database = try DocumentDatabase()
        let started = try servers(database)
        let (first, second) = (started[0].0, started[1].0)
        defer {
            first.stop()
            second.stop()
        }
        let claimed = try select("a", on: first, after: started[0].1, claim: true)
        #expect(!claim(second, claimed))
        first.unclaim(claimed)
        #expect(eventually { claim(second, claimed) })
        let unclaimed = try select("b", on: first, after: claimed, claim: false)
        #expect(claim(second, unclaimed))
    }
}
