import HTTP
import Storage
import TestSupport
import Testing

@testable import Server

/// Every journal's error, the seeds' and a data file's, answered as the contract says (docs/api.md, "Errors"):
/// the status, the error code, and the header a client acts on (`Retry-After`, `Idempotency-Key`).
@Suite struct JournalErrorResponseTests {
    private static func answer(_ error: JournalError) throws -> (status: Int, code: String, headers: HTTPHeaders) {
        let response = Response(error: error)
        return (response.status, try ErrorBody(response).error, response.headers)
    }

    @Test func nothingChangedIs503WithItsCode() throws {
        for (error, code) in [
            (JournalError.failed("disk I/O error", code: .sqlite(10)), "storage_error"),
            (.unavailable("PostgreSQL is unreachable"), "storage_unavailable"),
            (.behind(prunedBelow: 40), "storage_unavailable"),
            (.busy("1,024 writes wait"), "storage_busy"),
        ] {
            let answer = try Self.answer(error)
            #expect(answer.status == 503, "\(error)")
            #expect(answer.code == code, "\(error)")
        }
    }

    @Test func onlyABusyStoreAsksToRetryAfterASecond() throws {
        #expect(try Self.answer(.busy("full queue")).headers["Retry-After"] == "1")
        for error in [JournalError.unavailable("down"), .behind(prunedBelow: 1), .failed("full")] {
            #expect(try Self.answer(error).headers["Retry-After"] == nil, "\(error)")
        }
    }

    @Test func anUnknownOutcomeIs504NamingTheKeyToSendAgainWith() throws {
        let keyed = try Self.answer(.outcomeUnknown(key: "k-1"))
        #expect(keyed.status == 504 && keyed.code == "storage_outcome_unknown")
        #expect(keyed.headers["Idempotency-Key"] == "k-1")
        let batch = try Self.answer(.outcomeUnknown(key: nil))
        #expect(batch.status == 504 && batch.headers["Idempotency-Key"] == nil)
    }

    @Test func aKeyReusedIs422() throws {
        let answer = try Self.answer(.keyReused)
        #expect(answer.status == 422 && answer.code == "idempotency_key_reused")
    }

    @Test func theEngineCodeAndTheContextStayInTheMessage() throws {
        let failed = JournalError.failed("database or disk is full", code: .sqlite(13)).explained(by: "cannot use x")
        #expect(failed.message.contains("cannot use x: database or disk is full (SQLite result code 13)"))
        let unavailable = JournalError.unavailable("no route").explained(by: "the checkpoints could not be read")
        #expect(unavailable.message.contains("the checkpoints could not be read: no route"))
    }
}
