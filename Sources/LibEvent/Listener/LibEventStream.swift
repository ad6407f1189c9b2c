import CEvent
import Foundation
import HTTP

/// The `HTTPStream` of a chunked reply on one connection.
final class LibEventStream: HTTPStream, @unchecked Sendable {
    // NB: @unchecked because every C pointer and the state below are touched only on `loop`'s thread.

    /// The connection's loop.
    let eventLoop: EventLoop
    private let listener: HTTPListener
    private let request: UnsafeMutablePointer<evhttp_request>
    private let connection: OpaquePointer
    /// The connection's guard, which owns evhttp's close callback and passes the close on.
    private let connectionGuard: ConnectionGuard?
    private let timeout: timeval
    /// Whether the reply is chunked (HTTP/1.1); the stream frames the chunks itself (`DirectChunk`).
    private let chunked: Bool
    private var closed = false
    /// The first close action kept apart: a stream mostly has one, and an array would be a buffer more.
    private var closeAction: (@Sendable () -> Void)?
    private var moreCloseActions: [@Sendable () -> Void] = []
    private var drainAction: (@Sendable () -> Void)?
    /// The client address whose slot the stream holds (`PeerStreams`), given back when it ends.
    var peer: String?

    init(
        listener: HTTPListener, request: UnsafeMutablePointer<evhttp_request>, connection: OpaquePointer,
        connectionGuard: ConnectionGuard?, writeTimeout: timeval
    ) {
        self.eventLoop = listener.loop
        self.listener = listener
        self.request = request
        self.connection = connection
        self.connectionGuard = connectionGuard
        timeout = writeTimeout
        // evhttp's own framing off while the stream frames its chunks (`EvhttpInternals.setChunked`).
        chunked = EvhttpInternals.isChunked(request)
        EvhttpInternals.setChunked(request, false)
        watchClose(true)
        // NB: evhttp stops reading once a request is in; read again (into a small, ignored buffer) so a
        // client that leaves is noticed at once, not at the next write. No read timeout: streams idle.
        if let bev = evhttp_connection_get_bufferevent(connection) {
            var writeTimeout = writeTimeout
            bufferevent_set_timeouts(bev, nil, &writeTimeout)
            bufferevent_setwatermark(bev, Int16(EV_READ), 0, 4096)
            bufferevent_enable(bev, Int16(EV_READ))
            ErrorPages.uninstall(from: bufferevent_get_output(bev))
            Self.sendHead(bev)
        }
    }

    /// Hands the response head (in the output since `evhttp_send_reply_start`) to the socket now, not at the
    /// loop's next turn: the stream's first work runs in this turn (a live query builds its first result),
    /// and a cut-off in the same turn (`abort`, a reset that discards the unsent output) must not take the
    /// head with it. A new stream's socket takes a head at once; what it does not take waits as before.
    private static func sendHead(_ bev: OpaquePointer) {
        let output = bufferevent_get_output(bev)
        let descriptor = bufferevent_getfd(bev)
        let length = evbuffer_get_length(output)
        guard descriptor >= 0, length > 0 else { return }
        var head = [UInt8](repeating: 0, count: length)
        let copied = head.withUnsafeMutableBytes { evbuffer_copyout(output, $0.baseAddress, length) }
        guard copied > 0 else { return }
        let sent = send(descriptor, head, copied, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        guard sent > 0 else { return }
        // NB: a bufferevent keeps its output's front frozen but around its own writes.
        evbuffer_unfreeze(output, 1)
        evbuffer_drain(output, sent)
        evbuffer_freeze(output, 1)
    }

    var loop: any RequestLoop { eventLoop }

    var pendingBytes: Int {
        precondition(eventLoop.inLoop, "pendingBytes is read on the stream's loop")
        guard !closed, let bev = evhttp_connection_get_bufferevent(connection) else { return 0 }
        return evbuffer_get_length(bufferevent_get_output(bev))
    }

    var isClosed: Bool {
        precondition(eventLoop.inLoop, "isClosed is read on the stream's loop")
        return closed
    }

    func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        write([SharedBytes(bytes)])
    }

    func write(_ frames: [SharedBytes]) {
        guard !frames.isEmpty else { return }
        // NB: on the loop (the fan-out's case) at once, without a closure per write.
        if eventLoop.inLoop {
            writeOnLoop(frames)
        } else {
            eventLoop.execute { [self] in writeOnLoop(frames) }
        }
    }

    /// One chunk of `frames`: straight to the socket when nothing waits in the output, else (and for
    /// what the kernel did not take) behind the output through evhttp.
    private func writeOnLoop(_ frames: [SharedBytes]) {
        guard !closed, let chunk = listener.chunk, let bev = evhttp_connection_get_bufferevent(connection)
        else { return }
        let size = frames.reduce(0) { $0 + $1.count }
        guard size > 0 else { return }
        var sent = 0
        if frames.count <= DirectChunk.maxFrames, evbuffer_get_length(bufferevent_get_output(bev)) == 0 {
            let descriptor = bufferevent_getfd(bev)
            if descriptor >= 0 { sent = DirectChunk.send(frames, size: size, chunked: chunked, on: descriptor) }
        }
        guard sent < DirectChunk.framedLength(size, chunked: chunked) else { return }
        DirectChunk.appendRest(frames, size: size, chunked: chunked, skipping: sent, to: chunk)
        sendChunk(chunk)
    }

    func onDrain(_ action: @escaping @Sendable () -> Void) {
        precondition(eventLoop.inLoop, "onDrain is set on the stream's loop")
        drainAction = action
    }

    /// Moves `chunk` (the listener's, shared by its streams) into the connection's output (libevent moves
    /// referenced pieces, never copies them), asking to be told when the output has drained.
    ///
    /// NB: evhttp keeps one write callback per connection, replaced by each chunk and by the reply's end,
    /// so after `close()` it never calls back into a stream that may be gone.
    private func sendChunk(_ chunk: OpaquePointer) {
        evhttp_send_reply_chunk_with_cb(
            request, chunk,
            { _, context in
                Unmanaged<LibEventStream>.fromOpaque(context!).takeUnretainedValue().drained()
            }, Unmanaged.passUnretained(self).toOpaque())
        // NB: evhttp leaves the buffer as it was when the connection is already gone; the next stream's
        // chunk must not carry these bytes.
        let left = evbuffer_get_length(chunk)
        if left > 0 { evbuffer_drain(chunk, left) }
    }

    /// libevent wrote the whole output to the socket.
    private func drained() {
        guard !closed else { return }
        drainAction?()
    }

    func close() {
        eventLoop.executeNowOrLater { [self] in
            guard !closed else { return }
            watchClose(false)
            if let bev = evhttp_connection_get_bufferevent(connection) {
                // Back to the timeouts and unbounded reads of a keep-alive connection.
                var timeout = timeout
                bufferevent_set_timeouts(bev, &timeout, &timeout)
                bufferevent_setwatermark(bev, Int16(EV_READ), 0, 0)
                ErrorPages.install(on: bufferevent_get_output(bev))
            }
            finish()
            EvhttpInternals.setChunked(request, chunked)
            evhttp_send_reply_end(request)
        }
    }

    func abort() {
        eventLoop.executeNowOrLater { [self] in
            guard !closed else { return }
            watchClose(false)
            connectionGuard?.forbidLingering()
            if let bev = evhttp_connection_get_bufferevent(connection) {
                let fd = bufferevent_getfd(bev)
                if fd >= 0 {
                    // NB: a zero linger makes the close a reset, so the kernel drops the unsent bytes too.
                    var option = linger(l_onoff: 1, l_linger: 0)
                    setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
                }
            }
            finish()
            // Frees the request with the connection (libevent's own path for a failed incoming connection).
            evhttp_connection_free(connection)
        }
    }

    func onClose(_ action: @escaping @Sendable () -> Void) {
        eventLoop.executeNowOrLater { [self] in
            if closed {
                action()
            } else if closeAction == nil {
                closeAction = action
            } else {
                moreCloseActions.append(action)
            }
        }
    }

    /// Whether the connection's close reaches `connectionLost`.
    private func watchClose(_ watching: Bool) {
        guard let connectionGuard else {
            evhttp_connection_set_closecb(
                connection,
                watching
                    ? { _, context in
                        Unmanaged<LibEventStream>.fromOpaque(context!).takeUnretainedValue().connectionLost()
                    } : nil, Unmanaged.passUnretained(self).toOpaque())
            return
        }
        // NB: unowned: the guard drops the action when the connection closes, and the stream outlives that.
        connectionGuard.onClose = watching ? { [unowned self] in connectionLost() } : nil
    }

    /// The client left or timed out; libevent detached the request, which `evhttp_send_reply_end` frees.
    private func connectionLost() {
        guard !closed else { return }
        finish()
        // NB: not from inside the close callback: libevent is still freeing the connection.
        eventLoop.execute { [self] in evhttp_send_reply_end(request) }
    }

    private func finish() {
        closed = true
        drainAction = nil
        listener.streamEnded(self)
        let first = closeAction
        let actions = moreCloseActions
        closeAction = nil
        moreCloseActions = []
        first?()
        for action in actions { action() }
    }
}
