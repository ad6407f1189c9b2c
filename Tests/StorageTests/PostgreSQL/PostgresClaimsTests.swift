import Domain
import Foundation
import TestSupport
import Testing

@testable import LibEvent
@testable import Storage

/// Download claims of album selections on a real PostgreSQL (`TestPostgres`): the journal that commits a
/// selection holds its claim, another cannot take it while that connection lives and can once it ended,
/// and an outcome is journaled once whoever sends it.
///
/// NB: serialized. The stray-claim test holds a lock on an id its rolled-back batch took; the next batch in
/// the database reuses that id, so a selection committed by the other test meanwhile would find its claim
/// taken (in a server, `SelectionDownloads.takeOver` settles that; here it failed the first test under
/// AddressSanitizer).
@Suite(.serialized, .enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct PostgresClaimsTests {
    @Test func aClaimIsHeldUntilItsConnectionEndsAndAnOutcomeIsJournaledOnce() throws {
        let loop = try EventLoop(name: "pg-claims-test")
        loop.run()
        defer { loop.stop() }
        let uri = try TestPostgres.uri()
        let first = PostgresJournal(uri: uri, loop: loop)
        let second = PostgresJournal(uri: uri, loop: loop)
        _ = first.start()
        defer { first.stop() }
        _ = second.start()
        defer { second.stop() }
        let claimed = LockedBox<[Int64]>([])
        let committed = LockedBox<Result<JournalAppended, JournalError>?>(nil)
        first.appendClaimed(
            topic: "selection", json: #"{"url":"/placeholder/8/112233"}"#, key: nil,
            claimed: { seq in claimed.mutate { $0.append(seq) } }
        ) { result in committed.mutate { $0 = result } }
        #expect(eventually(timeout: 10) { committed.value != nil })
        guard case .success(let selection)? = committed.value else {
            Issue.record("the selection was not committed: \(String(describing: committed.value))")
            return
        }
        let seq = selection.seq
        #expect(claimed.value == [seq])
        let key = "image of selection \(seq) \(UInt64.random(in: 0...UInt64.max))"
        // The holder is alive: nobody else gets the claim.
        #expect(claim(second, seq, key) == false)
        // Its connection ends (as when its process is killed): the claim is free, and one taker gets it.
        first.stop()
        #expect(eventually(timeout: 10) { claim(second, seq, key) == true })
        // An outcome sent twice with one key is one entry: the second is answered with the first's id.
        let outcomes = LockedBox<[Result<JournalAppended, JournalError>]>([])
        for _ in 0..<2 {
            let answered = LockedBox(false)
            second.append(topic: "image", json: #"{"failed":"test"}"#, key: key) { result in
                outcomes.mutate { $0.append(result) }
                answered.mutate { $0 = true }
            }
            #expect(eventually(timeout: 10) { answered.value })
        }
        guard outcomes.value.count == 2, case .success(let once) = outcomes.value[0],
            case .success(let again) = outcomes.value[1]
        else {
            Issue.record("the outcome was not committed: \(outcomes.value)")
            return
        }
        #expect(once.seq == again.seq && !once.repeated && again.repeated)
        // Once the outcome is there, nobody claims the selection again (not even after the holder gave up).
        second.unclaim(seq)
        #expect(claim(second, seq, key) == false)
    }

    /// What `journal.claim` answers, waited for.
    private func claim(_ journal: PostgresJournal, _ seq: Int64, _ key: String) -> Bool? {
        let answer = LockedBox<Bool?>(nil)
        journal.claim(seq, outcome: key) { taken in answer.mutate { $0 = taken } }
        _ = eventually(timeout: 10) { answer.value != nil }
        return answer.value
    }

    @Test func aClaimTakenInABatchThatFailsAsAWholeIsReleased() throws {
        try PostgresReadConnectionTests.following { journal, uri, _ in try strayClaim(journal, uri) }
    }

    /// A selection's block takes its claim, then its batch fails as a whole.
    private func strayClaim(_ journal: PostgresJournal, _ uri: String) throws {
        let loop = journal.loop
        let (todo, holder) = try PostgresReadConnectionTests.heldTodo(journal, uri)
        // One batch: the selection (its block takes the claim), then an update that waits for the row until
        // the statement timeout fails the whole batch — nothing committed, the selection answered 503.
        let answers = LockedBox<[String]>([])
        loop.execute {
            journal.write(.insert(title: "goes first, alone", completed: false)) { _ in }
            journal.appendClaimed(
                topic: "selection", json: #"{"url":"/placeholder/8/445566"}"#, key: nil,
                claimed: { _ in answers.mutate { $0.append("claimed") } }
            ) { result in
                let line = if case .failure(.unavailable) = result { "selection 503" } else { "selection \(result)" }
                answers.mutate { $0.append(line) }
            }
            journal.write(.update(id: todo.id, title: "waits for the row", completed: nil)) { _ in }
        }
        #expect(eventually(timeout: 20) { answers.value.contains { $0.hasPrefix("selection") } })
        #expect(answers.value == ["selection 503"])
        try holder.run("ROLLBACK")
        // The claim the rolled-back block took is not left with the session.
        let writer = PostgresReadConnectionTests.backends(journal).writes
        let locks = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = $1::int"
        #expect(eventually(timeout: 10) { (try? holder.run(locks, [String(writer)]).integer(0, 0)) == 0 })
    }
}
