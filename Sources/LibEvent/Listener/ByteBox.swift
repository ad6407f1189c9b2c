import CEvent
import HTTP

/// How bytes reach a libevent output buffer: small ones copied, larger ones referenced (`evbuffer_add_reference`)
/// with the `SharedBytes` that owns them retained until libevent has written them and runs the cleanup.
enum ByteBox {
    /// A response body or chunk at or above this size is referenced instead of copied.
    static let bodyReferenceSize = 8192
    /// A shared frame at or above this size is referenced instead of copied.
    ///
    /// NB: a reference costs libevent a chain of its own (a malloc of about a hundred bytes and an iovec
    /// per write), so a frame smaller than this is cheaper copied into the chain already there.
    static let frameReferenceSize = 1024

    /// Adds a body that only this buffer uses: copied below 8 KiB, referenced above (no copy).
    static func append(_ bytes: [UInt8], to buffer: OpaquePointer?) {
        guard bytes.count >= bodyReferenceSize else {
            bytes.withUnsafeBufferPointer { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
            return
        }
        append(SharedBytes(bytes), to: buffer)
    }

    /// Adds a frame that many buffers share: referenced (retained until written) unless it is small.
    static func append(shared frame: SharedBytes, to buffer: OpaquePointer?, referenceSize: Int = frameReferenceSize) {
        guard frame.count >= referenceSize else {
            frame.bytes.withUnsafeBufferPointer { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
            return
        }
        append(frame, to: buffer)
    }

    private static func append(_ frame: SharedBytes, to buffer: OpaquePointer?) {
        // NB: the retained object keeps the array's storage alive (and unmutated: it is a `let`) until
        // libevent calls the cleanup; the pointer stays valid because that storage never moves.
        let box = Unmanaged.passRetained(frame)
        frame.bytes.withUnsafeBufferPointer { pointer in
            let status = evbuffer_add_reference(
                buffer, pointer.baseAddress, pointer.count,
                { _, _, context in Unmanaged<SharedBytes>.fromOpaque(context!).release() }, box.toOpaque())
            if status != 0 {
                box.release()
                _ = evbuffer_add(buffer, pointer.baseAddress, pointer.count)
            }
        }
    }
}
