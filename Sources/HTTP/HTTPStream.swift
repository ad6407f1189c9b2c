/// An open chunked reply (`Reply.stream`), bound to the event loop of its connection.
///
/// `write`, `close` and `onClose` may be called from any thread (they hop to `loop`);
/// `pendingBytes`, `isClosed` and `onDrain` are used on `loop`.
package protocol HTTPStream: AnyObject, Sendable {
    /// The loop that owns the connection; run per-stream work here (`receive(on: stream.loop)`).
    var loop: any RequestLoop { get }
    /// Sends `bytes` as one chunk. Ignored once the stream is closed.
    func write(_ bytes: [UInt8])
    /// Sends `frames` as one chunk, each referenced where the connection can (not copied per stream): the
    /// frames stay alive until written. Ignored once the stream is closed.
    func write(_ frames: [SharedBytes])
    /// Bytes written but not yet handed to the kernel (read on `loop`).
    var pendingBytes: Int { get }
    /// Whether the stream ended, by `close()`, by the client, or at shutdown (read on `loop`).
    var isClosed: Bool { get }
    /// Runs `action` on `loop` each time everything written so far has been handed to the kernel, until
    /// the stream ends (replaces an earlier action; call on `loop`): how a writer feeds a slow client
    /// only as fast as it reads.
    func onDrain(_ action: @escaping @Sendable () -> Void)
    /// Ends the reply (the terminating chunk) and runs the close actions.
    func close()
    /// Drops the connection at once, discarding every byte the client has not read, and runs the close
    /// actions: for a client that stopped reading, whose unsent output must not stay in memory.
    func abort()
    /// Runs `action` once on `loop` when the stream ends for any reason (at once if it already did).
    func onClose(_ action: @escaping @Sendable () -> Void)
}
