import CEvent

/// An immutable byte array kept alive while libevent references it from an output buffer: how response
/// bodies and stream chunks over 8 KiB reach the socket without a copy.
final class ByteBox {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Adds `bytes` to an output buffer: small bodies are copied, large ones referenced (no copy).
    static func append(_ bytes: [UInt8], to buffer: OpaquePointer?) {
        guard bytes.count >= 8192 else {
            bytes.withUnsafeBufferPointer { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
            return
        }
        // NB: the box keeps the array's storage alive (and unmutated: it is a `let`) until libevent has
        // written it and calls the cleanup; the pointer stays valid because that storage never moves.
        let box = Unmanaged.passRetained(ByteBox(bytes))
        box.takeUnretainedValue().bytes.withUnsafeBufferPointer { pointer in
            let status = evbuffer_add_reference(
                buffer, pointer.baseAddress, pointer.count,
                { _, _, context in Unmanaged<ByteBox>.fromOpaque(context!).release() }, box.toOpaque())
            if status != 0 {
                box.release()
                _ = evbuffer_add(buffer, pointer.baseAddress, pointer.count)
            }
        }
    }
}
