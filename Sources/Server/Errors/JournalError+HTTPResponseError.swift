package import HTTP
import Storage

/// Storage's refusal as the contract's answer (docs/api.md, "Errors"), the one place any journal's error
/// (the seeds', a data file's, its checkpoints') becomes one: 503 when nothing was changed (`storage_error`,
/// `storage_unavailable`, `storage_busy` with `Retry-After: 1`), 504 when the outcome is unknown (with the
/// `Idempotency-Key` to send the write again with), 422 for a key reused by another kind of request. The
/// engine's code stays in the message, for the operator the client forwards it to.
extension JournalError: HTTPResponseError {
    package var status: Int {
        switch self {
        case .failed, .unavailable, .busy, .behind: HTTPStatus.serviceUnavailable
        case .outcomeUnknown: HTTPStatus.gatewayTimeout
        case .keyReused: HTTPStatus.unprocessableContent
        }
    }

    /// The machine-readable code of the contract's error body.
    package var code: String {
        switch self {
        case .failed: "storage_error"
        case .unavailable, .behind: "storage_unavailable"
        case .busy: "storage_busy"
        case .outcomeUnknown: "storage_outcome_unknown"
        case .keyReused: "idempotency_key_reused"
        }
    }

    /// A sentence for a person.
    package var message: String {
        switch self {
        case .failed: "The change could not be saved: \(description)"
        case .unavailable(let reason): "The database is unavailable, nothing was changed: \(reason)"
        case .busy(let reason): "The database is busy, nothing was changed; try again in a moment: \(reason)"
        case .outcomeUnknown:
            "The database could not be reached in time to learn whether the change was saved; send the request"
                + " again with the same Idempotency-Key to apply it once and get its answer."
        case .keyReused: "This Idempotency-Key was used before by a different kind of request; nothing was changed."
        case .behind: "This server is catching up with the database; nothing was changed, try again."
        }
    }

    /// `Retry-After: 1` when writes are queued up to the bound: the queue drains within a second or so; the
    /// key to send the write again with when its outcome is unknown.
    package var headers: HTTPHeaders {
        switch self {
        case .busy: ["Retry-After": "1"]
        case .outcomeUnknown(let key?): ["Idempotency-Key": key]
        default: [:]
        }
    }
}
