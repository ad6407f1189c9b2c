package import Reactive
package import Support
import Synchronization

/// The JSON of a publisher's latest value, encoded once per emission and then served as is: a read costs a
/// lock and a reference copy, never an encoding (the `GET /todos` and `GET /albums` fast path). `/events`
/// takes the same bytes from `snapshots`, so an emission is encoded once for both.
///
/// Each value comes as the view model's `Versioned` carrier (its journal id and the change that made it, of
/// type `Change`; `Never` for a publisher of bare values), which the snapshot keeps: `/events` and the live
/// queries read the change from it, and a list's encoder follows it (`init(versionedList:)`).
///
/// ```swift
/// let snapshot = EncodedSnapshot(list: models.todos.tasks)
/// get("/todos") { _ in .response(snapshot.response!) }
/// snapshot.snapshots.sink { print($0.bytes.count) }  // the current one, then each new one
/// ```
package final class EncodedSnapshot<Value: Encodable & Sendable, Change: Sendable>: Sendable {
    /// One encoded value: the value with its journal id and change, its bytes and the ready `200` response
    /// carrying them.
    package struct Snapshot: Sendable {
        /// The value that was encoded, as the view model emitted it.
        package var version: Versioned<Value, Change>
        /// The compact JSON of the value (`JSONCoding.encode`).
        package var bytes: [UInt8]
        /// `200`, `Content-Type: application/json; charset=utf-8`, the extra headers, `bytes` as body, and
        /// those bytes prepared (the tag the encoding gave or, on first use, their checksum; the gzip form on the
        /// first gzip request), so once per emission.
        package var response: Response
        /// For a list encoded item by item (`init(list:)` of identifiable items), its change from the
        /// previous list as `?diff=1` sends it (`ListEncoder.Encoded.diff`); nil otherwise.
        package var diff: [UInt8]? = nil

        /// The value that was encoded.
        package var value: Value { version.value }
    }

    /// Turns a value into its bytes (and, for lists, the change from the previous one and the bytes' entity
    /// tag; a nil tag is made from the bytes' checksum on the first request that needs it).
    package typealias Encoding =
        @Sendable (Versioned<Value, Change>) throws -> (bytes: [UInt8], diff: [UInt8]?, tag: String?)

    private let latest = Mutex<Snapshot?>(nil)
    /// The latest snapshot's response, beside it: a `GET` reads this one. Its type does not depend on `Value`,
    /// so reading it needs no type metadata made at run time (`Mutex<Snapshot?>`'s is, on every access from
    /// this generic class: measured about 1,100 instructions per `GET /todos`, docs/benchmarks.md).
    private let latestResponse = Mutex<Response?>(nil)
    private let subscription = Mutex<AnyCancellable?>(nil)
    // NB: a current-value subject, so a subscriber that comes late still gets the latest snapshot first.
    private let encoded = CurrentValueSubject<Snapshot?, Never>(nil)

    /// Subscribes to `publisher` and encodes each value it emits; `headers` adds fields to the response
    /// (computed once per emission too). A current-value publisher is encoded at once.
    /// `encoding` turns each value into its bytes (by default `JSONCoding.encode`, the whole value).
    package convenience init<P: Publisher>(
        _ publisher: P,
        headers: @escaping (Value) -> HTTPHeaders = { _ in [:] },
        encoding: @escaping Encoding = { (try JSONCoding.encode($0.value), nil, nil) }
    ) where P.Output == Value, P.Failure == Never, Change == Never {
        self.init(versioned: publisher.map { Versioned(seq: nil, $0) }, headers: headers, encoding: encoding)
    }

    /// Subscribes to values that each carry the journal id of the entry that made them and its change
    /// (kept in their snapshot as `version`), and encodes each as `init(_:headers:encoding:)` does.
    package init<P: Publisher>(
        versioned publisher: P,
        headers: @escaping (Value) -> HTTPHeaders = { _ in [:] },
        encoding: @escaping Encoding = { (try JSONCoding.encode($0.value), nil, nil) }
    ) where P.Output == Versioned<Value, Change>, P.Failure == Never {
        let cancellable = publisher.sink { [weak self] version in
            self?.store(version, headers: headers(version.value), encoding: encoding)
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
        latestResponse.withLock { $0 }
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
    private func store(_ version: Versioned<Value, Change>, headers: HTTPHeaders, encoding: Encoding) {
        do {
            let (bytes, diff, tag) = try encoding(version)
            let response = Response.json(encoded: bytes, headers: headers, prepared: PreparedBody(bytes, etag: tag))
            let snapshot = Snapshot(version: version, bytes: bytes, response: response, diff: diff)
            // NB: both are set before the subject sends, in emission order (stores are serialised); a reader
            // between the two locks sees the previous response once more, as it would a moment earlier.
            latest.withLock { $0 = snapshot }
            latestResponse.withLock { $0 = response }
            encoded.send(snapshot)
        } catch {
            Log.error("cannot encode a snapshot of \(Value.self): \(error)")
        }
    }
}

extension EncodedSnapshot {
    /// A list's snapshot, whose response also carries `X-Total-Count`.
    package convenience init<P: Publisher, Item: Encodable & Sendable>(list publisher: P)
    where P.Output == [Item], P.Failure == Never, Value == [Item], Change == Never {
        self.init(publisher) { list in ["X-Total-Count": String(list.count)] }
    }

    /// A list of identifiable items: encoded item by item with each item's bytes kept (`ListEncoder`), so
    /// a change of one item encodes that item only, the snapshot carries the change as `diff`, and the
    /// entity tag follows the change (`ListDigest`) instead of being a checksum of the whole body.
    package convenience init<P: Publisher, Item>(identifiedList publisher: P)
    where
        P.Output == [Item], P.Failure == Never, Value == [Item], Change == ListChange<Item>,
        Item: Identifiable & Equatable & Encodable & Sendable, Item.ID: Encodable & Sendable
    {
        self.init(versionedList: publisher.map { Versioned(seq: nil, change: nil, $0) })
    }

    /// `init(identifiedList:)` for lists that each come with the journal id of the entry that made them and
    /// its change: the encoder follows the change (`ListEncoder.encode(_:change:)`), comparing no items. The
    /// list is an array or a `ChunkedList`, which the encoder keeps as it is.
    package convenience init<P: Publisher>(versionedList publisher: P)
    where
        P.Output == Versioned<Value, ListChange<Value.Element>>, P.Failure == Never,
        Change == ListChange<Value.Element>,
        Value: RandomAccessCollection & RangeReplaceableCollection, Value.Index == Int,
        Value.Element: Identifiable & Equatable & Encodable & Sendable, Value.Element.ID: Encodable & Sendable
    {
        let encoder = ListEncoder<Value>()
        self.init(versioned: publisher, headers: { list in ["X-Total-Count": String(list.count)] }) { version in
            let encoded = try encoder.encode(version.value, change: version.change)
            return (encoded.bytes, encoded.diff, encoded.tag)
        }
    }
}
