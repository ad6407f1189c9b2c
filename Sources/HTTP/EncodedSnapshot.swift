package import Reactive
import Synchronization

/// The JSON of a publisher's latest value, encoded once per emission and then served as is: a read costs a
/// lock and a reference copy, never an encoding (the `GET /todos` and `GET /albums` fast path). `/events`
/// takes the same bytes from `snapshots`, so an emission is encoded once for both.
///
/// ```swift
/// let snapshot = EncodedSnapshot(list: models.todos.tasks)
/// get("/todos") { _ in .response(snapshot.response!) }
/// snapshot.snapshots.sink { print($0.bytes.count) }  // the current one, then each new one
/// ```
package final class EncodedSnapshot<Value: Encodable & Sendable>: Sendable {
    /// One encoded value: the value, its bytes and the ready `200` response carrying them.
    package struct Snapshot: Sendable {
        /// The value that was encoded.
        package var value: Value
        /// The compact JSON of the value (`JSONCoding.encode`).
        package var bytes: [UInt8]
        /// `200`, `Content-Type: application/json; charset=utf-8`, the extra headers, `bytes` as body, and
        /// those bytes prepared (tag now, gzip form on the first gzip request), so once per emission.
        package var response: Response
    }

    private let latest = Mutex<Snapshot?>(nil)
    private let subscription = Mutex<AnyCancellable?>(nil)
    // NB: a current-value subject, so a subscriber that comes late still gets the latest snapshot first.
    private let encoded = CurrentValueSubject<Snapshot?, Never>(nil)

    /// Subscribes to `publisher` and encodes each value it emits; `headers` adds fields to the response
    /// (computed once per emission too). A current-value publisher is encoded at once.
    package init<P: Publisher>(
        _ publisher: P,
        headers: @escaping (Value) -> HTTPHeaders = { _ in [:] }
    ) where P.Output == Value, P.Failure == Never {
        let cancellable = publisher.sink { [weak self] value in
            self?.store(value, headers: headers(value))
        }
        subscription.withLock { $0 = cancellable }
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

    /// The latest snapshot (if any), then each new one, in emission order.
    package var snapshots: AnyPublisher<Snapshot, Never> {
        encoded.compactMap { $0 }.eraseToAnyPublisher()
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
    private func store(_ value: Value, headers: HTTPHeaders) {
        do {
            let bytes = try JSONCoding.encode(value)
            let response = Response.json(encoded: bytes, headers: headers, prepared: PreparedBody(bytes))
            let snapshot = Snapshot(value: value, bytes: bytes, response: response)
            latest.withLock { $0 = snapshot }
            encoded.send(snapshot)
        } catch {
            Log.error("cannot encode a snapshot of \(Value.self): \(error)")
        }
    }
}

extension EncodedSnapshot {
    /// A list's snapshot, whose response also carries `X-Total-Count`.
    package convenience init<P: Publisher, Item: Encodable & Sendable>(list publisher: P)
    where P.Output == [Item], P.Failure == Never, Value == [Item] {
        self.init(publisher) { list in ["X-Total-Count": String(list.count)] }
    }
}
