import Foundation
import TestSupport
import Testing

@testable import LibEvent
@testable import Storage

/// The libpq connection on a real event loop against a real PostgreSQL (`TestPostgres`).
@Suite(.enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct PostgresConnectionTests {
    /// Opens a connection on `loop` and waits for it (or fails the test).
    private func open(_ uri: String, on loop: EventLoop, timeout: Double = 5) throws -> PostgresConnection {
        let box = LockedBox<Result<PostgresConnection, PostgresError>?>(nil)
        loop.execute { PostgresConnection.open(uri, on: loop, timeout: timeout) { box.value = $0 } }
        #expect(eventually(timeout: timeout + 5) { box.value != nil })
        return try #require(box.value).get()
    }

    /// Runs one statement on the connection's loop and waits for its answer.
    private func query(_ connection: PostgresConnection, _ sql: String, _ parameters: [String?] = [])
        -> Result<PostgresRows, PostgresError>?
    {
        let box = LockedBox<Result<PostgresRows, PostgresError>?>(nil)
        connection.loop.execute { connection.query(sql, parameters) { box.value = $0 } }
        _ = eventually(timeout: 10) { box.value != nil }
        return box.value
    }

    private func runningLoop() throws -> EventLoop {
        let loop = try EventLoop(name: "pg-test")
        loop.run()
        return loop
    }

    @Test func answersParameterisedStatementsOnTheLoopWithTextReadByLength() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let connection = try open(try TestPostgres.uri(), on: loop)
        let onLoop = LockedBox<Bool?>(nil)
        let box = LockedBox<PostgresRows?>(nil)
        loop.execute {
            connection.query("SELECT $1::text || '!', $2::int + 1, NULL::text", ["héllo wörld ✓", "41"]) {
                onLoop.value = loop.inLoop
                box.value = try? $0.get()
            }
        }
        #expect(eventually(timeout: 10) { box.value != nil })
        #expect(onLoop.value == true)
        #expect(box.value?.rows == [["héllo wörld ✓!", "42", nil]])
    }

    @Test func runsStatementsInOrderAndSurvivesARefusedOne() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let connection = try open(try TestPostgres.uri(), on: loop)
        let answers = LockedBox<[String]>([])
        loop.execute {
            for index in 0..<50 {
                connection.query("SELECT $1::int", [String(index)]) { result in
                    answers.mutate { $0.append((try? result.get().rows[0][0]) ?? "error") }
                }
            }
            connection.query("SELECT * FROM no_such_table") { result in
                if case .failure(let error) = result, error.kind == .refused, error.sqlState == "42P01" {
                    answers.mutate { $0.append("refused") }
                }
            }
            connection.query("SELECT 'after'") { result in
                answers.mutate { $0.append((try? result.get().rows[0][0]) ?? "error") }
            }
        }
        #expect(eventually(timeout: 10) { answers.value.count == 52 })
        #expect(answers.value == (0..<50).map(String.init) + ["refused", "after"])
    }

    @Test func theLoopServesOtherWorkWhileAStatementRuns() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let connection = try open(try TestPostgres.uri(), on: loop)
        let done = LockedBox(false)
        let ticks = LockedBox(0)
        loop.execute { connection.query("SELECT pg_sleep(0.6)") { _ in done.value = true } }
        let timer = loop.schedule(after: 0.05, repeating: 0.05) { if !done.value { ticks.mutate { $0 += 1 } } }
        defer { timer.cancel() }
        #expect(eventually(timeout: 10) { done.value })
        // A loop blocked in the statement would have run no tick before it ended.
        #expect(ticks.value >= 5)
    }

    @Test func deliversNotificationsFromAnotherConnection() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let uri = try TestPostgres.uri()
        let listener = try open(uri, on: loop)
        let sender = try open(uri, on: loop)
        let channels = LockedBox<[String]>([])
        loop.execute { listener.onNotification = { channel, _, _ in channels.mutate { $0.append(channel) } } }
        #expect((try? query(listener, "LISTEN livestate_test")?.get()) != nil)
        #expect((try? query(sender, "SELECT pg_notify('livestate_test', '')")?.get()) != nil)
        #expect(eventually(timeout: 10) { channels.value == ["livestate_test"] })
    }

    @Test func aClosedPortIsUnreachableAndAMuteServerTimesOut() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        // A port nobody listens on: refused at once.
        let refused = LockedBox<PostgresError?>(nil)
        loop.execute {
            PostgresConnection.open("postgresql://127.0.0.1:1/livestate", on: loop, timeout: 5) {
                if case .failure(let error) = $0 { refused.value = error }
            }
        }
        #expect(eventually(timeout: 10) { refused.value != nil })
        #expect(refused.value?.kind == .unreachable)
        // A socket that accepts and never answers: the connect timeout ends it.
        let mute = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(mute) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(mute, $0, length) }
        }
        listen(mute, 4)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(mute, $0, &length) }
        }
        let port = UInt16(bigEndian: address.sin_port)
        let timedOut = LockedBox<PostgresError?>(nil)
        let start = Date()
        loop.execute {
            PostgresConnection.open("postgresql://127.0.0.1:\(port)/livestate", on: loop, timeout: 0.5) {
                if case .failure(let error) = $0 { timedOut.value = error }
            }
        }
        #expect(eventually(timeout: 10) { timedOut.value != nil })
        #expect(timedOut.value?.kind == .unreachable)
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test func aBrokenConnectionFailsTheStatementInFlightAsUnknownAndTheQueuedAsUnreachable() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let uri = try TestPostgres.uri()
        let victim = try open(uri, on: loop)
        let killer = try open(uri, on: loop)
        let pid = try #require(try query(victim, "SELECT pg_backend_pid()")?.get().rows.first?.first ?? nil)
        let outcomes = LockedBox<[PostgresError.Kind]>([])
        let closed = LockedBox(false)
        loop.execute {
            victim.onClose = { _ in closed.value = true }
            victim.query("SELECT pg_sleep(30)") {
                if case .failure(let e) = $0 { outcomes.mutate { $0.append(e.kind) } }
            }
            victim.query("SELECT 1") { if case .failure(let e) = $0 { outcomes.mutate { $0.append(e.kind) } } }
        }
        usleep(200_000)
        #expect((try? query(killer, "SELECT pg_terminate_backend($1::int)", [pid])?.get()) != nil)
        #expect(eventually(timeout: 10) { outcomes.value.count == 2 })
        #expect(outcomes.value == [.outcomeUnknown, .unreachable])
        #expect(closed.value)
        let after = LockedBox<PostgresError.Kind?>(nil)
        loop.execute { victim.query("SELECT 1") { if case .failure(let e) = $0 { after.value = e.kind } } }
        #expect(eventually { after.value == .unreachable })
    }
}
