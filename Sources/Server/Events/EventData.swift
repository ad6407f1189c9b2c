/// The data of one emission as its source hands it to the hub: its JSON, or, for a collection's whole list
/// (which only `/events` clients without `?diff=1` read, and maybe none is connected), its size and how to
/// write it when a client first reads it (`EventFrame`).
///
/// ```swift
/// hub.publish(.posts, journaled: id) { (.later(size: applied.encodedSize, write: resource.bytesLater), diff) }
/// ```
enum EventData: Sendable {
    /// The compact JSON, at hand.
    case json([UInt8])
    /// Compact JSON of `size` bytes that `write` appends to a buffer, on any thread, any time later.
    case later(size: Int, write: @Sendable (inout [UInt8]) -> Void)
}
