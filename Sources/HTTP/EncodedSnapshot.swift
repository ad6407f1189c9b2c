package import Reactive
import Synchronization

/// The JSON of a publisher's latest value, encoded once per emission and then served as is: a read costs a
/// lock and a reference copy, never an encoding (the `GET /todos` and `GET /albums` fast path; `/events` can
/// reuse `bytes`).
///
/// ```swift
/// let snapshot = EncodedSnapshot(list: models.todos.tasks)
/// get("/todos") { _ in .response(snapshot.response!) }
/// ```
package final class EncodedSnapshot: Sendable {
    /// One encoded value: the bytes and the ready `200` response carrying them.
    package struct Snapshot: Sendable {
        /// The compact JSON of the value (`JSONCoding.encode`).
        package var bytes: [UInt8]
        /// `200`, `Content-Type: application/json; charset=utf-8`, the extra headers, `bytes` as body.
        package var response: Response
    }

    private let latest = Mutex<Snapshot?>(nil)
    private let subscription = Mutex<AnyCancellable?>(nil)

    /// Subscribes to `publisher` and encodes each value it emits; `headers` adds fields to the response
    /// (computed once per emission too). A current-value publisher is encoded at once.
    package init<P: Publisher>(
        _ publisher: P,
        headers: @escaping (P.Output) -> HTTPHeaders = { _ in [:] }
    ) where P.Output: Encodable, P.Failure == Never {
        let cancellable = publisher.sink { [weak self] value in
            self?.store(value, headers: headers(value))
        }
        subscription.withLock { $0 = cancellable }
    }

    /// A list's snapshot, whose response also carries `X-Total-Count`.
    package convenience init<P: Publisher, Item: Encodable>(list publisher: P)
    where P.Output == [Item], P.Failure == Never {
        self.init(publisher) { list in ["X-Total-Count": String(list.count)] }
    }

    /// The latest snapshot; nil before the first emission or if every encoding so far failed.
    package var current: Snapshot? {
        latest.withLock { $0 }
    }

    /// The latest encoded bytes.
    package var bytes: [UInt8]? {
        current?.bytes
    }

    /// The latest ready response.
    package var response: Response? {
        current?.response
    }

    /// Stops following the publisher; the last snapshot stays.
    package func cancel() {
        let cancellable = subscription.withLock { subscription in
            defer { subscription = nil }
            return subscription
        }
        cancellable?.cancel()
    }

    // NB: Combine serialises a publisher's emissions, so stores arrive in emission order; encoding happens
    // outside the lock so readers never wait for it.
    private func store(_ value: some Encodable, headers: HTTPHeaders) {
        do {
            let bytes = try JSONCoding.encode(value)
            let snapshot = Snapshot(bytes: bytes, response: .json(encoded: bytes, headers: headers))
            latest.withLock { $0 = snapshot }
        } catch {
            Log.error("cannot encode a snapshot of \(type(of: value)): \(error)")
        }
    }
}
