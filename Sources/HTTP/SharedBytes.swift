import Synchronization

/// Immutable bytes shared by reference: one SSE frame (or body) that many connections write without a
/// copy each. The storage is a `let` array that no one can mutate, so a pointer to it stays valid for as
/// long as the object lives; `LibEvent` hands that pointer to libevent and keeps the object retained
/// until libevent has written the bytes.
///
/// ```swift
/// let frame = SharedBytes(Array("data: 1\n\n".utf8))
/// stream.write([frame])  // every client: a reference, not a copy
/// ```
package final class SharedBytes: Sendable {
    /// The bytes.
    package let bytes: [UInt8]
    /// What a sender made once from these bytes for all its sends (LibEvent: a prepared answer's header
    /// lines), kept for as long as the bytes live.
    private let attached = Mutex<(any AnyObject & Sendable)?>(nil)

    /// Wraps `bytes` (no copy: the array's storage is shared).
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The number of bytes.
    package var count: Int { bytes.count }

    /// Whether `body` is these very bytes (the same storage, so equal without comparing a byte).
    package func isStorage(of body: [UInt8]) -> Bool {
        body.count == bytes.count
            && body.withUnsafeBufferPointer { theirs in
                bytes.withUnsafeBufferPointer { mine in theirs.baseAddress == mine.baseAddress }
            }
    }

    /// The object attached to these bytes, made by `make` on first use (nil: none could be made; asked
    /// again next time). Made under the lock, so concurrent first senders make it once. One kind of sender
    /// attaches (LibEvent's `PreparedWire`), which casts what it gets back.
    ///
    /// NB: not generic: called from another module, a generic one made `Optional<T>`'s type metadata and a
    /// dynamic cast at run time on every call (about 600 instructions per `GET`, docs/benchmarks.md).
    package func attachment(make: () -> (any AnyObject & Sendable)?) -> (any AnyObject & Sendable)? {
        attached.withLock { attached in
            if let attached { return attached }
            let made = make()
            if let made { attached = made }
            return made
        }
    }
}
