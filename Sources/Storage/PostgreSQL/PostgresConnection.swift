import CPostgres
import Glibc
package import LibEvent

/// One libpq connection driven asynchronously on an `EventLoop`: connecting with `PQconnectStart` /
/// `PQconnectPoll`, statements with `PQsendQueryParams`, answers with `PQconsumeInput` / `PQisBusy` /
/// `PQgetResult`, and `LISTEN` wake-ups with `PQnotifies`, all driven by `PQsocket` under a libevent
/// event. No thread ever waits for the server.
///
/// The only owner of libpq's pointers. Used on its loop only: every method and every completion runs
/// there. Statements run one at a time, in the order given; a broken connection fails them all (the one
/// in flight with `.outcomeUnknown`, the queued ones with `.unreachable`) and is not reused: make a new one.
///
/// ```swift
/// PostgresConnection.open("postgresql://127.0.0.1/livestate", on: loop, timeout: 5) { result in
///     let connection = try result.get()
///     connection.query("SELECT $1::int + 1", ["41"]) { print(try? $0.get().integer()) }  // 42
/// }
/// ```
package final class PostgresConnection: @unchecked Sendable {
    // NB: @unchecked because every property is touched on `loop`'s thread only (see above).

    /// A completion: the rows, or why there are none.
    package typealias Completion = (Result<PostgresRows, PostgresError>) -> Void

    private struct Statement {
        var sql: String
        var parameters: [String?]
        /// Sent with the simple protocol (`PQsendQuery`): several statements, no parameters.
        var isScript = false
        var completion: Completion
    }

    private enum Status {
        case connecting(Completion?)
        case ready
        case closed
    }

    /// The loop the connection runs on.
    package let loop: EventLoop
    /// Called on the loop with the channel, the payload and the notifying backend's process id of each
    /// `NOTIFY` received on a channel this connection listens to.
    package var onNotification: ((_ channel: String, _ payload: String, _ sender: Int32) -> Void)?
    /// Called once on the loop when the connection breaks or is closed.
    package var onClose: ((PostgresError) -> Void)?

    private var connection: OpaquePointer?
    private var watch: SocketWatch?
    private var status: Status
    private var queue: [Statement] = []
    private var inFlight: Statement?
    /// What the statement in flight returned so far (libpq hands over one result per statement).
    private var answer: Result<PostgresRows, PostgresError> = .success(PostgresRows())
    private var connectTimer: LoopTimer?

    private init(loop: EventLoop) {
        self.loop = loop
        status = .connecting(nil)
    }

    deinit {
        connectTimer?.cancel()
        watch = nil
        if let connection { PQfinish(connection) }
    }

    /// Opens a connection to `uri` (a libpq connection URI or keyword string) on `loop` (call on the loop);
    /// `completion` gets it once it is ready, or the reason after at most `timeout` seconds.
    package static func open(
        _ uri: String, on loop: EventLoop, timeout: Double,
        completion: @escaping (Result<PostgresConnection, PostgresError>) -> Void
    ) {
        precondition(loop.inLoop, "a PostgreSQL connection is opened on its loop")
        let connection = PostgresConnection(loop: loop)
        connection.status = .connecting { result in
            completion(result.map { _ in connection })
        }
        connection.start(uri, timeout: timeout)
    }

    /// Whether statements can be sent (connected, not broken).
    package var isReady: Bool {
        if case .ready = status { return true }
        return false
    }

    /// The process id of this connection's backend (0 when not connected): what `onNotification`'s
    /// `sender` is for the notifications this session's own commits send.
    package var backendPID: Int32 {
        guard case .ready = status, let connection else { return 0 }
        return PQbackendPID(connection)
    }

    /// Statements given and not yet answered, the one in flight included.
    package var pending: Int { queue.count + (inFlight == nil ? 0 : 1) }

    /// Sends `sql` with `parameters` (`$1`, `$2`, … as text, nil for NULL) after the statements before it;
    /// `completion` gets the rows of its last result, or the error.
    package func query(_ sql: String, _ parameters: [String?] = [], completion: @escaping Completion) {
        precondition(loop.inLoop, "a PostgreSQL statement is sent on its connection's loop")
        guard case .closed = status else {
            queue.append(Statement(sql: sql, parameters: parameters, completion: completion))
            sendNext()
            return
        }
        completion(.failure(PostgresError(.unreachable, "the connection to PostgreSQL is closed")))
    }

    /// Sends `sql`, one or more statements without parameters (schema scripts), in one implicit transaction.
    package func script(_ sql: String, completion: @escaping Completion) {
        precondition(loop.inLoop, "a PostgreSQL statement is sent on its connection's loop")
        guard case .closed = status else {
            queue.append(Statement(sql: sql, parameters: [], isScript: true, completion: completion))
            sendNext()
            return
        }
        completion(.failure(PostgresError(.unreachable, "the connection to PostgreSQL is closed")))
    }

    /// Closes the connection: the statement in flight fails with `.outcomeUnknown`, queued ones with
    /// `.unreachable`, and `onClose` runs with `reason`.
    package func close(_ reason: String = "the connection was closed") {
        fail(PostgresError(.unreachable, reason))
    }

    // MARK: Connecting

    private func start(_ uri: String, timeout: Double) {
        connection = PQconnectStart(uri)
        guard let connection, PQstatus(connection) != CONNECTION_BAD else {
            fail(PostgresError(.unreachable, errorMessage(default: "cannot start a connection to PostgreSQL")))
            return
        }
        PQsetnonblocking(connection, 1)
        // NB: timers fire on the loop they were made on, this connection's.
        connectTimer = loop.schedule(after: timeout) { [weak self] in
            guard let self, case .connecting = self.status else { return }
            self.fail(PostgresError(.unreachable, "PostgreSQL did not answer within \(timeout) s"))
        }
        // libpq's rule: after PQconnectStart, behave as if PQconnectPoll had asked to write.
        rewatch(read: false, write: true)
    }

    private func pollConnect() {
        guard let connection else { return }
        switch PQconnectPoll(connection) {
        case PGRES_POLLING_READING: rewatch(read: true, write: false)
        case PGRES_POLLING_WRITING: rewatch(read: false, write: true)
        case PGRES_POLLING_OK:
            connectTimer?.cancel()
            connectTimer = nil
            guard case .connecting(let completion) = status else { return }
            status = .ready
            rewatch(read: true, write: false)
            completion?(.success(PostgresRows()))
            sendNext()
        default:
            fail(PostgresError(.unreachable, errorMessage(default: "cannot connect to PostgreSQL")))
        }
    }

    /// Watches libpq's current socket (it may change while connecting) for the conditions given.
    private func rewatch(read: Bool, write: Bool) {
        guard let connection else { return }
        let fd = PQsocket(connection)
        guard fd >= 0 else {
            fail(PostgresError(.unreachable, errorMessage(default: "PostgreSQL connection has no socket")))
            return
        }
        if watch?.fd != fd {
            watch = SocketWatch(loop: loop, fd: fd) { [unowned self] readable, writable in
                ready(readable: readable, writable: writable)
            }
        }
        watch?.want(read: read, write: write)
    }

    private func ready(readable: Bool, writable: Bool) {
        switch status {
        case .connecting: pollConnect()
        case .ready:
            if writable { flush() }
            if readable { receive() }
        case .closed: watch?.cancel()
        }
    }

    // MARK: Statements

    private func sendNext() {
        guard case .ready = status, inFlight == nil, !queue.isEmpty, let connection else { return }
        let statement = queue.removeFirst()
        let copies = statement.parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        // NB: libpq copies the parameters into its output buffer before returning: the copies can go.
        let sent =
            statement.isScript
            ? PQsendQuery(connection, statement.sql)
            : copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                PQsendQueryParams(connection, statement.sql, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
            }
        guard sent == 1 else {
            queue.insert(statement, at: 0)
            fail(PostgresError(.unreachable, errorMessage(default: "cannot send to PostgreSQL")))
            return
        }
        inFlight = statement
        answer = .success(PostgresRows())
        flush()
    }

    /// Pushes libpq's output buffer to the socket; watches for writability while some is left.
    private func flush() {
        guard let connection else { return }
        switch PQflush(connection) {
        case 0: rewatch(read: true, write: false)
        case 1: rewatch(read: true, write: true)
        default: fail(PostgresError(.outcomeUnknown, errorMessage(default: "cannot write to PostgreSQL")))
        }
    }

    private func receive() {
        guard let connection else { return }
        guard PQconsumeInput(connection) == 1 else {
            fail(PostgresError(.outcomeUnknown, errorMessage(default: "the connection to PostgreSQL broke")))
            return
        }
        while inFlight != nil, self.connection != nil, PQisBusy(connection) == 0 {
            guard let result = PQgetResult(connection) else {
                let statement = inFlight
                inFlight = nil
                statement?.completion(answer)
                sendNext()
                continue
            }
            record(result)
            PQclear(result)
        }
        deliverNotifications()
    }

    /// Keeps the last result of the statement in flight (an error wins over later results).
    private func record(_ result: OpaquePointer) {
        let status = PQresultStatus(result)
        switch status {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
            guard case .success = answer else { return }
            answer = .success(Self.rows(of: result))
        default:
            guard case .success = answer else { return }
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = PQresultErrorMessage(result).map { String(cString: $0) } ?? "statement failed"
            answer = .failure(PostgresError(.refused, Self.trimmed(message), sqlState: state))
        }
    }

    private static func rows(of result: OpaquePointer) -> PostgresRows {
        let columnCount = PQnfields(result)
        var rows = PostgresRows()
        rows.columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        rows.affected = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        rows.rows = (0..<PQntuples(result)).map { row in
            (0..<columnCount).map { column -> String? in
                guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else {
                    return nil
                }
                // NB: read with its length, never up to a NUL.
                let length = Int(PQgetlength(result, row, column))
                return value.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                }
            }
        }
        return rows
    }

    private func deliverNotifications() {
        while let connection, let notification = PQnotifies(connection) {
            let channel = String(cString: notification.pointee.relname)
            let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
            let sender = notification.pointee.be_pid
            PQfreemem(notification)
            onNotification?(channel, payload, sender)
        }
    }

    // MARK: Failure

    /// Ends the connection for good: fails what is pending and tells `onClose`.
    private func fail(_ error: PostgresError) {
        if case .closed = status { return }
        let connecting: Completion?
        if case .connecting(let completion) = status { connecting = completion } else { connecting = nil }
        status = .closed
        connectTimer?.cancel()
        connectTimer = nil
        watch?.cancel()
        watch = nil
        if let connection { PQfinish(connection) }
        connection = nil
        let sent = inFlight
        let waiting = queue
        inFlight = nil
        queue = []
        connecting?(.failure(error))
        sent?.completion(.failure(PostgresError(.outcomeUnknown, error.message)))
        for statement in waiting {
            statement.completion(.failure(PostgresError(.unreachable, error.message)))
        }
        onClose?(error)
        onClose = nil
        onNotification = nil
    }

    private func errorMessage(default fallback: String) -> String {
        guard let connection, let text = PQerrorMessage(connection) else { return fallback }
        let message = Self.trimmed(String(cString: text))
        return message.isEmpty ? fallback : message
    }

    /// libpq's message on one line (it ends lines with "\n\t" to indent its hints).
    private static func trimmed(_ message: String) -> String {
        var message = Substring(message.split(whereSeparator: { $0 == "\n" || $0 == "\t" }).joined(separator: " "))
        while let last = message.last, last.isWhitespace { message = message.dropLast() }
        return String(message)
    }
}
