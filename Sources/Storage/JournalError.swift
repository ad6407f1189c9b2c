/// Why storage did not commit a change, or cannot say whether it did: storage's own errors, for both
/// engines and for every journal (`DocumentJournal`, the seeds' and a data file's, and its checkpoints), with the engine's code kept (an operator looks up SQLite's result code or PostgreSQL's
/// SQLSTATE). The server maps each case to its answer in one place (`Server/Errors`; docs/api.md: 503,
/// 504, 422).
///
/// ```swift
/// journal.append(topic: "frameworks", json: json) { result in
///     if case .failure(.unavailable(let reason)) = result { … }   // 503 storage_unavailable
/// }
/// ```
package enum JournalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The engine refused or failed the change (disk full, a locked or damaged file, a constraint): nothing
    /// was changed. `code` is the engine's own, when it gave one.
    case failed(_ reason: String, code: StorageEngineCode? = nil)
    /// The shared database (PostgreSQL) cannot be reached now; the change was not applied and never will be.
    case unavailable(String)
    /// Too many writes are already waiting for the shared database; the change was not applied (retry later).
    case busy(String)
    /// The shared database could not be reached in time to learn whether the change committed: it may have
    /// been applied. Sent again with `key` (its `Idempotency-Key`), it is applied once and answered truly.
    /// No key: a batch of several writes, each with its own (`DocumentJournal.commitBatch`).
    case outcomeUnknown(key: String?)
    /// The `Idempotency-Key` was used before by a different kind of request; nothing was changed.
    case keyReused
    /// Retention deleted entries this server has not applied (those below `prunedBelow`): it was away longer
    /// than the journal keeps them, and takes the items as they are instead; nothing was changed.
    case behind(prunedBelow: Int64)

    /// The same error with `context` (which file, which step) before its reason, the engine's code kept.
    package func explained(by context: String) -> JournalError {
        switch self {
        case .failed(let reason, let code): .failed("\(context): \(reason)", code: code)
        case .unavailable(let reason): .unavailable("\(context): \(reason)")
        default: self
        }
    }

    /// The reason, with the engine's code when there is one.
    package var description: String {
        switch self {
        case .failed(let reason, let code?): "\(reason) (\(code))"
        case .failed(let reason, nil), .unavailable(let reason), .busy(let reason): reason
        case .outcomeUnknown(let key?): "the outcome of the write with key \(key) is unknown"
        case .outcomeUnknown(nil): "the change was sent to the database, which did not answer whether it committed"
        case .keyReused: "the key was used by another kind of request"
        case .behind(let below): "entries below \(below) were deleted by retention before this server applied them"
        }
    }
}

/// An error code as the storage engine gave it.
package enum StorageEngineCode: Equatable, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (`sqlite3_extended_errcode`: 13 is `SQLITE_FULL`, 5 `SQLITE_BUSY`).
    case sqlite(Int32)
    /// PostgreSQL's five-character SQLSTATE (`23505` unique violation, `53100` disk full).
    case postgres(sqlState: String)

    /// `SQLite result code 13`, `SQLSTATE 23505`.
    package var description: String {
        switch self {
        case .sqlite(let code): "SQLite result code \(code)"
        case .postgres(let sqlState): "SQLSTATE \(sqlState)"
        }
    }
}
