/// An open chunked reply (`Reply.stream`), bound to the event loop of its connection.
///
/// `write`, `close` and `onClose` may be called from any thread (they hop to `loop`);
/// `pendingBytes` and `isClosed` are read on `loop`.
package protocol HTTPStream: AnyObject, Sendable {
    /// The loop that owns the connection; run per-stream work here (`receive(on: stream.loop)`).
    var loop: any RequestLoop { get }
    /// Sends `bytes` as one chunk. Ignored once the stream is closed.
    func write(_ bytes: [UInt8])
    /// Bytes written but not yet handed to the kernel (read on `loop`).
    var pendingBytes: Int { get }
    /// Whether the stream ended, by `close()`, by the client, or at shutdown (read on `loop`).
    var isClosed: Bool { get }
    /// Ends the reply (the terminating chunk) and runs the close actions.
    func close()
    /// Drops the connection at once, discarding every byte the client has not read, and runs the close
    /// actions: for a client that stopped reading, whose unsent output must not stay in memory.
    func abort()
    /// Runs `action` once on `loop` when the stream ends for any reason (at once if it already did).
    func onClose(_ action: @escaping @Sendable () -> Void)
}
