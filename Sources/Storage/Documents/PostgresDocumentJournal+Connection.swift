import Dispatch
import Foundation
import LibEvent
import Support
import Synchronization

/// The journal's one connection: opened on its loop with backoff, and the blocking calls over it.
extension PostgresDocumentJournal {
    /// Blocks until the connection is ready, opening it (with backoff) if needed.
    func waitForConnection() {
        while true {
            let ready = DispatchSemaphore(value: 0)
            let isReady = Mutex(false)
            loop.execute { [self] in
                if let connection, connection.isReady {
                    isReady.withLock { $0 = true }
                } else {
                    connect()
                }
                ready.signal()
            }
            ready.wait()
            if isReady.withLock({ $0 }) { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// Opens the connection unless it is open or opening; on failure, tries again after a backoff (0.1 s,
    /// doubling up to 2 s), saying so once per try.
    private func connect() {
        guard !connecting, !stopped, connection?.isReady != true else { return }
        connecting = true
        PostgresConnection.open(uri, on: loop, timeout: 5) { [self] result in
            connecting = false
            switch result {
            case .success(let opened):
                backoff = 0.1
                if let since = outageSince {
                    Log.info("postgres: documents connection back after \(Self.seconds(since)) s")
                    outageSince = nil
                }
                opened.onClose = { [weak self] error in self?.lost(error) }
                // NB: this session's own commits are applied by the store that made them: no catch-up for them.
                let own = opened.backendPID
                opened.onNotification = { [weak self] _, payload, sender in
                    if sender != own { self?.wake(announcing: Int64(payload)) }
                }
                opened.query("SET statement_timeout = '3s'") { _ in }
                // NB: a server stopped (SIGSTOP, a VM paused) inside a batch would hold `writeLock`, and so every
                // server's writes, for as long as its socket lives: PostgreSQL ends such a session instead.
                opened.query("SET idle_in_transaction_session_timeout = '4s'") { _ in }
                opened.query("SET jit = off") { _ in }
                opened.query("LISTEN \(Self.channel)") { _ in }
                connection = opened
                wake(announcing: nil)
            case .failure(let error):
                if outageSince == nil { outageSince = Date() }
                let delay = backoff * Double.random(in: 0.5...1.0)
                backoff = min(backoff * 2, 2)
                Log.error(
                    "postgres: cannot open the documents connection (\(error)); retrying in "
                        + "\(String(format: "%.1f", delay)) s")
                _ = loop.schedule(after: delay) { [weak self] in self?.connect() }
            }
        }
    }

    private func lost(_ error: PostgresError) {
        connection = nil
        guard !stopped else { return }
        if outageSince == nil { outageSince = Date() }
        Log.error("postgres: documents connection lost (\(error)); reconnecting")
        _ = loop.schedule(after: backoff * Double.random(in: 0.5...1.0)) { [weak self] in self?.connect() }
    }

    private static func seconds(_ since: Date) -> String {
        String(format: "%.1f", Date().timeIntervalSince(since))
    }

    /// Starts a transaction on the connection as it is now; the transaction's statements all go to it.
    func begin(until deadline: DispatchTime) throws(PostgresError) -> PostgresConnection {
        let box = Mutex<PostgresConnection?>(nil)
        let result = wait(for: nil, "BEGIN", until: deadline) { connection in box.withLock { $0 = connection } }
        guard case .success = result, let session = box.withLock({ $0 }) else {
            if case .failure(let error) = result { throw error }
            throw PostgresError(.unreachable, "no connection")
        }
        return session
    }

    /// Runs one statement of `session`'s transaction; a failure leaves the transaction to `abandon`.
    @discardableResult
    func step(
        _ session: PostgresConnection, _ sql: String, _ parameters: [String?] = [], until deadline: DispatchTime
    ) throws(PostgresError) -> PostgresRows {
        try wait(for: session, sql, parameters, until: deadline).get()
    }

    /// Ends a transaction that failed: rolled back when its session still answers (`rollingBack`; not for a
    /// statement that was its own transaction), else the session is closed (PostgreSQL then rolls it back and
    /// frees its lock). The download `claims` it took are given back (a session lock outlives the rollback).
    func abandon(_ session: PostgresConnection, rollingBack: Bool = true, releasing claims: [Int64] = []) {
        loop.execute {
            if rollingBack { session.query("ROLLBACK") { _ in } }
            if !claims.isEmpty { session.query(Self.releaseClaims, [Self.array(claims)]) { _ in } }
        }
    }

    /// Runs `sql` on `session` (nil: the connection as it is now) and waits for its answer until `deadline`;
    /// past it, the session is closed (its transaction, if any, is rolled back) and the statement's outcome
    /// is unknown. `used` gets the connection the statement went to, on the loop.
    func wait(
        for session: PostgresConnection?, _ sql: String, _ parameters: [String?] = [], isScript: Bool = false,
        until deadline: DispatchTime, used: (@Sendable (PostgresConnection) -> Void)? = nil
    ) -> Result<PostgresRows, PostgresError> {
        let call = Mutex(StatementCall())
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            guard let connection = session ?? connection, connection.isReady,
                session == nil || session === self.connection
            else {
                call.withLock {
                    $0.answer = .failure(PostgresError(.unreachable, "the connection to PostgreSQL is closed"))
                }
                done.signal()
                return
            }
            // NB: a caller that gave up before the statement was sent must not leave it to run later.
            let sending = call.withLock { call -> Bool in
                guard !call.abandoned else { return false }
                call.target = connection
                return true
            }
            guard sending else { return }
            used?(connection)
            let finish: PostgresConnection.Completion = { result in
                call.withLock { $0.answer = result }
                done.signal()
            }
            if isScript {
                connection.script(sql, completion: finish)
            } else {
                connection.query(sql, parameters, completion: finish)
            }
        }
        if done.wait(timeout: deadline) == .timedOut {
            let late = call.withLock { call in
                call.abandoned = true
                return call.target
            }
            loop.execute { late?.close("no answer in time") }
            return .failure(PostgresError(.outcomeUnknown, "PostgreSQL did not answer in time"))
        }
        return call.withLock { $0.answer } ?? .failure(PostgresError(.unreachable, "no answer"))
    }

    /// Runs `migrations` on the connection as it is now and waits for them until `deadline`.
    func migrate(until deadline: DispatchTime) -> Result<Void, PostgresError> {
        let answer = Mutex<Result<Void, PostgresError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            guard let connection, connection.isReady else {
                answer.withLock { $0 = .failure(PostgresError(.unreachable, "the connection to PostgreSQL is closed")) }
                done.signal()
                return
            }
            Self.migrations(for: dataSet).migrate(connection) { result in
                answer.withLock { $0 = result }
                done.signal()
            }
        }
        guard done.wait(timeout: deadline) == .success else {
            return .failure(PostgresError(.outcomeUnknown, "PostgreSQL did not answer in time"))
        }
        return answer.withLock { $0 } ?? .failure(PostgresError(.unreachable, "no answer"))
    }

    func script(_ sql: String, until deadline: DispatchTime) -> Result<PostgresRows, PostgresError> {
        wait(for: nil, sql, isScript: true, until: deadline)
    }
}

/// One statement `wait` hands to the loop: its answer, the connection it went to, and whether the caller
/// gave up before it was sent.
private struct StatementCall: @unchecked Sendable {
    // NB: @unchecked for `target`, a connection used on its loop only; the struct is read under a lock.
    var answer: Result<PostgresRows, PostgresError>?
    var target: PostgresConnection?
    var abandoned = false
}
