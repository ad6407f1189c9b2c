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
    /// What a sender made once from these bytes for all its sends (LibEvent: a large body as a file the
    /// kernel sends from), kept for as long as the bytes live.
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

    /// The object of type `T` attached to these bytes, made by `make` on first use (nil: none could be
    /// made; asked again next time). Made under the lock, so concurrent first senders make it once.
    package func attachment<T: AnyObject & Sendable>(_ type: T.Type = T.self, make: () -> T?) -> T? {
        attached.withLock { attached in
            if let kept = attached as? T { return kept }
            let made = make()
            if let made { attached = made }
            return made
        }
    }
}
