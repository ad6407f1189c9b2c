import CEvent

/// Watches one file descriptor owned by someone else (libpq's socket) for readability and writability on
/// an `EventLoop`, calling `onReady` on the loop each time one of the wanted conditions holds.
///
/// Used on its loop only: `init`, `want`, `cancel` and the callback all run there. The descriptor is never
/// closed here; the owner cancels the watch before it closes or replaces the descriptor.
///
/// ```swift
/// let watch = SocketWatch(loop: loop, fd: PQsocket(conn)) { readable, writable in … }
/// watch.want(read: true, write: false)
/// ```
package final class SocketWatch: @unchecked Sendable {
    // NB: @unchecked because the event is touched on the loop's thread only (see above).

    /// What to do when the descriptor is ready: `(readable, writable)`.
    package typealias Handler = (_ readable: Bool, _ writable: Bool) -> Void

    /// The loop the watch runs on.
    package let loop: EventLoop
    /// The descriptor watched.
    package let fd: Int32
    private let onReady: Handler
    private var event: OpaquePointer?
    private var wanted: (read: Bool, write: Bool) = (false, false)

    /// Creates a watch that wants nothing yet; call `want` to start.
    package init(loop: EventLoop, fd: Int32, onReady: @escaping Handler) {
        precondition(loop.inLoop, "a socket watch is made on its loop")
        self.loop = loop
        self.fd = fd
        self.onReady = onReady
    }

    deinit {
        if let event {
            event_del(event)
            event_free(event)
        }
    }

    /// Watches for the conditions given (both false: watches nothing until the next call).
    package func want(read: Bool, write: Bool) {
        guard read != wanted.read || write != wanted.write || event == nil else { return }
        if let event {
            event_del(event)
            event_free(event)
            self.event = nil
        }
        wanted = (read, write)
        guard read || write else { return }
        let flags = Int16(EV_PERSIST) | (read ? Int16(EV_READ) : 0) | (write ? Int16(EV_WRITE) : 0)
        // NB: unretained: the owner keeps the watch alive while it wants anything, and `deinit` removes
        // the event before the memory goes.
        event = event_new(
            loop.base, fd, flags,
            { _, what, context in
                let watch = Unmanaged<SocketWatch>.fromOpaque(context!).takeUnretainedValue()
                watch.onReady(what & Int16(EV_READ) != 0, what & Int16(EV_WRITE) != 0)
            }, Unmanaged.passUnretained(self).toOpaque())
        if let event { event_add(event, nil) }
    }

    /// Stops watching; the handler is not called again.
    package func cancel() {
        want(read: false, write: false)
    }
}
