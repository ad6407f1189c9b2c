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

    /// Wraps `bytes` (no copy: the array's storage is shared).
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The number of bytes.
    package var count: Int { bytes.count }
}
