import CEvent
import Foundation
package import HTTP
import Synchronization

/// One `evhttp` on one `EventLoop`: turns each `evhttp_request` into a `Request`, asks the `HTTPService`,
/// and sends exactly one reply (now, later from any thread, or as a stream).
///
/// `--threads N` makes N listeners, one per loop, accepting on duplicates of one listening socket.
package final class HTTPListener: @unchecked Sendable {
    // NB: @unchecked because `http`, `bound` and `streams` are used on `loop`'s thread only
    // (init runs before the loop starts; everything after hops to the loop).

    /// The loop that owns the `evhttp` and all its connections.
    package let loop: EventLoop
    private let service: HTTPService
    private let http: OpaquePointer
    private var bound: OpaquePointer?
    /// Closes new connections cleanly, instead of spinning, when descriptors run out.
    private var acceptGuard: AcceptGuard?
    /// Open streams, so shutdown can end them.
    private var streams: [ObjectIdentifier: LibEventStream] = [:]
    /// Replies handed to `.later` work and not yet sent (shutdown waits for them).
    private let pendingReplies = Atomic<Int>(0)
    private let writeTimeout: timeval

    /// Largest write handed to the kernel at once (libevent's default of 16 KiB splits a 23 KB reply).
    static let maxSingleWrite = 4 << 20

    /// Sets up the `evhttp` on `loop` (not yet running) and starts accepting on a duplicate of `socket`.
    package init(loop: EventLoop, service: HTTPService, limits: ListenerLimits, socket: ListeningSocket)
        throws(LibEventError)
    {
        guard let http = evhttp_new(loop.base) else { throw LibEventError("evhttp_new failed") }
        self.loop = loop
        self.service = service
        self.http = http
        writeTimeout = LoopTimer.timeval(seconds: limits.timeout)

        // NB: evhttp answers PATCH and OPTIONS with 501 unless they are allowed here; TRACE and the methods
        // libevent does not know (QUERY, BREW: its internal EVHTTP_REQ_UNKNOWN_, 1 << 15) are let in so they get
        // the contract's 405 with `Allow` (see `handle`), not evhttp's 501.
        let methods: [evhttp_cmd_type] = [
            EVHTTP_REQ_GET, EVHTTP_REQ_HEAD, EVHTTP_REQ_POST, EVHTTP_REQ_PUT, EVHTTP_REQ_PATCH,
            EVHTTP_REQ_DELETE, EVHTTP_REQ_OPTIONS, EVHTTP_REQ_TRACE,
        ]
        let unknownMethod: UInt16 = 1 << 15
        evhttp_set_allowed_methods(http, UInt16(methods.reduce(0) { $0 | $1.rawValue }) | unknownMethod)
        evhttp_set_max_body_size(http, limits.maxBodySize)
        evhttp_set_max_headers_size(http, limits.maxHeadersSize)
        var timeout = LoopTimer.timeval(seconds: limits.timeout)
        evhttp_set_timeout_tv(http, &timeout)
        // NB: no default Content-Type (libevent's is text/html; charset=ISO-8859-1); responses set their own.
        evhttp_set_default_content_type(http, nil)

        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(
            http,
            { request, context in
                guard let request, let context else { return }
                Unmanaged<HTTPListener>.fromOpaque(context).takeUnretainedValue().handle(request)
            }, context)
        evhttp_set_bevcb(
            http,
            { base, _ in HTTPListener.makeBufferEvent(base) }, context)

        let descriptor = try socket.duplicate()
        guard let bound = evhttp_accept_socket_with_handle(http, descriptor) else {
            close(descriptor)
            evhttp_free(http)
            throw LibEventError("evhttp_accept_socket_with_handle failed")
        }
        self.bound = bound
        acceptGuard = evhttp_bound_socket_get_listener(bound).map { AcceptGuard(listener: $0, loop: loop) }
    }

    deinit {
        evhttp_free(http)
    }

    // MARK: Shutdown

    /// Stops accepting new connections (open ones keep being served); on the loop.
    package func stopAccepting() {
        precondition(loop.inLoop)
        if let bound {
            acceptGuard?.invalidate()
            acceptGuard = nil
            // Closes this listener's duplicate of the listening socket.
            evhttp_del_accept_socket(http, bound)
            self.bound = nil
        }
    }

    /// Ends every open stream (the terminating chunk, then the close actions); on the loop.
    package func endStreams() {
        precondition(loop.inLoop)
        for stream in streams.values { stream.close() }
    }

    /// Whether replies handed to `.later` work are still unsent.
    package var hasPendingReplies: Bool { pendingReplies.load(ordering: .acquiring) > 0 }

    /// How many streams are open (on the loop).
    package var openStreams: Int {
        precondition(loop.inLoop)
        return streams.count
    }

    // MARK: Connections

    /// Each accepted connection's bufferevent: large single writes and the error-page rewrite.
    private static func makeBufferEvent(_ base: OpaquePointer?) -> OpaquePointer? {
        // Same options as evhttp's default (it closes the socket itself).
        guard let bev = bufferevent_socket_new(base, -1, 0) else { return nil }
        bufferevent_set_max_single_write(bev, maxSingleWrite)
        ErrorPages.install(on: bufferevent_get_output(bev))
        return bev
    }

    // MARK: Requests

    private func handle(_ raw: UnsafeMutablePointer<evhttp_request>) {
        let started = Self.now()
        guard let method = Self.method(evhttp_request_get_command(raw)) else {
            send(Response(error: unservedMethod(raw)), to: raw, method: .get, path: "?", started: started)
            return
        }
        let target = evhttp_request_get_uri(raw).map { String(cString: $0) } ?? "/"
        let request = Request(
            method, target, headers: Self.headers(evhttp_request_get_input_headers(raw)),
            body: Self.body(evhttp_request_get_input_buffer(raw)))
        switch service.respond(to: request) {
        case .response(let response):
            send(response, to: raw, method: method, path: request.path, started: started)
        case .later(let start):
            pendingReplies.add(1, ordering: .relaxed)
            let pending = PendingReply(
                listener: self, request: raw, method: method, path: request.path, started: started)
            start { response in pending.complete(response) }
        case .stream(let status, let headers, let start):
            startStream(
                raw, status: status, headers: headers, start: start, method: method, path: request.path,
                started: started)
        }
    }

    /// A method evhttp let in that the table never serves (TRACE, unknown ones): 405 with what the path allows,
    /// or 404; either closes the connection.
    ///
    /// NB: evhttp reads no body for these methods, so a body they carry would be parsed as the next request
    /// on a kept-alive connection: `Connection: close` makes evhttp close it after this answer instead.
    private func unservedMethod(_ raw: UnsafeMutablePointer<evhttp_request>) -> HTTPError {
        let target = evhttp_request_get_uri(raw).map { String(cString: $0) } ?? "/"
        let rawPath = Request.split(target: target).path
        let allowed = service.router.allowedMethods(for: rawPath).map(\.rawValue).joined(separator: ", ")
        guard !allowed.isEmpty else {
            var error = HTTPError.notFound("no route for \(PercentDecoding.decode(Substring(rawPath)))")
            error.headers["Connection"] = "close"
            return error
        }
        return HTTPError(
            405, "method_not_allowed", "this method is not allowed here; use \(allowed)",
            headers: ["Allow": allowed, "Connection": "close"])
    }

    /// Sends a complete response; on the loop.
    fileprivate func send(
        _ response: Response, to raw: UnsafeMutablePointer<evhttp_request>, method: HTTPMethod, path: String,
        started: UInt64
    ) {
        precondition(loop.inLoop)
        let output = evhttp_request_get_output_headers(raw)
        for field in response.headers where Self.addHeader(output, field.name, field.value) != 0 {
            Log.error("dropped invalid response header \(field.name)")
        }
        if method == .head {
            // evhttp sends no body and no length for HEAD; say what GET would send.
            if !response.headers.contains("Content-Length") {
                evhttp_add_header(output, "Content-Length", String(response.body.count))
            }
        } else if !response.body.isEmpty {
            Self.append(response.body, to: evhttp_request_get_output_buffer(raw))
        }
        evhttp_send_reply(raw, Int32(response.status), nil, nil)
        Self.logRequest(method, path, response.status, started)
    }

    fileprivate func replyFinished() {
        pendingReplies.subtract(1, ordering: .relaxed)
    }

    // MARK: Streams

    private func startStream(
        _ raw: UnsafeMutablePointer<evhttp_request>, status: Int, headers: HTTPHeaders,
        start: @Sendable (any HTTPStream) -> Void, method: HTTPMethod, path: String, started: UInt64
    ) {
        let output = evhttp_request_get_output_headers(raw)
        for field in headers { Self.addHeader(output, field.name, field.value) }
        evhttp_send_reply_start(raw, Int32(status), nil)
        guard let connection = evhttp_request_get_connection(raw) else {
            evhttp_send_reply_end(raw)
            return
        }
        let stream = LibEventStream(listener: self, request: raw, connection: connection, writeTimeout: writeTimeout)
        streams[ObjectIdentifier(stream)] = stream
        Self.logRequest(method, path, status, started, note: " (stream)")
        start(stream)
    }

    fileprivate func streamEnded(_ stream: LibEventStream) {
        streams[ObjectIdentifier(stream)] = nil
    }

    // MARK: Conversions

    private static func method(_ command: evhttp_cmd_type) -> HTTPMethod? {
        switch command {
        case EVHTTP_REQ_GET: .get
        case EVHTTP_REQ_HEAD: .head
        case EVHTTP_REQ_POST: .post
        case EVHTTP_REQ_PUT: .put
        case EVHTTP_REQ_PATCH: .patch
        case EVHTTP_REQ_DELETE: .delete
        case EVHTTP_REQ_OPTIONS: .options
        default: nil
        }
    }

    private static func headers(_ list: UnsafeMutablePointer<evkeyvalq>?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var node = list?.pointee.tqh_first
        while let field = node {
            if let key = field.pointee.key, let value = field.pointee.value {
                headers.add(String(cString: key), String(cString: value))
            }
            node = field.pointee.next.tqe_next
        }
        return headers
    }

    private static func body(_ buffer: OpaquePointer?) -> [UInt8] {
        guard let buffer else { return [] }
        let count = evbuffer_get_length(buffer)
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            initialized = max(0, evbuffer_copyout(buffer, storage.baseAddress, count))
        }
    }

    /// `evhttp_add_header` through `withCString` (no copy of a native string, unlike the implicit conversion).
    @discardableResult
    private static func addHeader(_ headers: UnsafeMutablePointer<evkeyvalq>?, _ name: String, _ value: String)
        -> Int32
    {
        name.withCString { name in value.withCString { value in evhttp_add_header(headers, name, value) } }
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

    /// Monotonic nanoseconds.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private static func logRequest(
        _ method: HTTPMethod, _ path: String, _ status: Int, _ started: UInt64,
        note: String = ""
    ) {
        guard Log.enabled(.info) else { return }
        let micros = (now() - started) / 1000
        let duration = "\(micros / 1000).\(String(micros % 1000 / 100))ms"
        Log.info("\(method.rawValue) \(path) \(status) \(duration)\(note)")
    }
}

/// An immutable byte array kept alive while libevent references it.
private final class ByteBox {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}

/// A `.later` reply: `complete` may run on any thread, exactly once; the send hops to the loop.
private final class PendingReply: @unchecked Sendable {
    // NB: @unchecked because `request` is only dereferenced on the listener's loop.
    private let listener: HTTPListener
    private let request: UnsafeMutablePointer<evhttp_request>
    private let method: HTTPMethod
    private let path: String
    private let started: UInt64
    private let done = Atomic<Bool>(false)

    init(
        listener: HTTPListener, request: UnsafeMutablePointer<evhttp_request>, method: HTTPMethod, path: String,
        started: UInt64
    ) {
        self.listener = listener
        self.request = request
        self.method = method
        self.path = path
        self.started = started
    }

    func complete(_ response: Response) {
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else {
            Log.error("\(method.rawValue) \(path): a reply was sent twice; the second is dropped")
            return
        }
        listener.loop.executeNowOrLater { [self] in
            // NB: if the client left meanwhile, libevent detached the request and frees it on this send.
            listener.send(response, to: request, method: method, path: path, started: started)
            listener.replyFinished()
        }
    }

    deinit {
        if !done.load(ordering: .acquiring) {
            Log.error("\(method.rawValue) \(path): the handler never replied")
        }
    }
}

/// The `HTTPStream` of a chunked reply on one connection.
final class LibEventStream: HTTPStream, @unchecked Sendable {
    // NB: @unchecked because every C pointer and the state below are touched only on `loop`'s thread.

    /// The connection's loop.
    let eventLoop: EventLoop
    private let listener: HTTPListener
    private let request: UnsafeMutablePointer<evhttp_request>
    private let connection: OpaquePointer
    private let chunk: OpaquePointer?
    private let timeout: timeval
    private var closed = false
    private var closeActions: [@Sendable () -> Void] = []

    fileprivate init(
        listener: HTTPListener, request: UnsafeMutablePointer<evhttp_request>, connection: OpaquePointer,
        writeTimeout: timeval
    ) {
        self.eventLoop = listener.loop
        self.listener = listener
        self.request = request
        self.connection = connection
        chunk = evbuffer_new()
        timeout = writeTimeout
        evhttp_connection_set_closecb(
            connection,
            { _, context in
                Unmanaged<LibEventStream>.fromOpaque(context!).takeUnretainedValue().connectionLost()
            }, Unmanaged.passUnretained(self).toOpaque())
        // NB: evhttp stops reading once a request is in; read again (into a small, ignored buffer) so a
        // client that leaves is noticed at once, not at the next write. No read timeout: streams idle.
        if let bev = evhttp_connection_get_bufferevent(connection) {
            var writeTimeout = writeTimeout
            bufferevent_set_timeouts(bev, nil, &writeTimeout)
            bufferevent_setwatermark(bev, Int16(EV_READ), 0, 4096)
            bufferevent_enable(bev, Int16(EV_READ))
        }
    }

    deinit {
        if let chunk { evbuffer_free(chunk) }
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
        eventLoop.executeNowOrLater { [self] in
            guard !closed, let chunk else { return }
            HTTPListener.append(bytes, to: chunk)
            evhttp_send_reply_chunk(request, chunk)
        }
    }

    func close() {
        eventLoop.executeNowOrLater { [self] in
            guard !closed else { return }
            evhttp_connection_set_closecb(connection, nil, nil)
            if let bev = evhttp_connection_get_bufferevent(connection) {
                // Back to the timeouts and unbounded reads of a keep-alive connection.
                var timeout = timeout
                bufferevent_set_timeouts(bev, &timeout, &timeout)
                bufferevent_setwatermark(bev, Int16(EV_READ), 0, 0)
            }
            finish()
            evhttp_send_reply_end(request)
        }
    }

    func abort() {
        eventLoop.executeNowOrLater { [self] in
            guard !closed else { return }
            evhttp_connection_set_closecb(connection, nil, nil)
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
            if closed { action() } else { closeActions.append(action) }
        }
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
        listener.streamEnded(self)
        let actions = closeActions
        closeActions = []
        for action in actions { action() }
    }
}
