import CEvent
import Foundation
package import HTTP
import Support
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
    /// The service's CORS policy, for the answers the connection guard writes itself.
    var cors: CORSPolicy? { service.cors }
    private let http: OpaquePointer
    private var bound: OpaquePointer?
    /// The bound socket `stopAccepting` closes on the next turn.
    private var closingBound: OpaquePointer?
    /// Closes new connections cleanly, instead of spinning, when descriptors run out.
    private var acceptGuard: AcceptGuard?
    /// Open streams, so shutdown can end them.
    private var streams: [ObjectIdentifier: LibEventStream] = [:]
    /// Replies handed to `.later` work and not yet sent (shutdown waits for them).
    private let pendingReplies = Atomic<Int>(0)
    private let writeTimeout: timeval
    private let limits: ListenerLimits
    /// The folder a large prepared body's file goes in (`FileBody`), or nil: every body goes by reference.
    private let bodyFiles: String?
    /// The open streams of each client address, shared by the server's listeners; nil: no cap.
    private let peerStreams: PeerStreams?
    /// This loop's request lines, buffered apart from every other loop's (flushed by `Log`).
    private let requestLog = LogBuffer()
    /// This loop's `Date` value, formatted once a second.
    private let date = DateField()
    /// Each open connection's guard (the raw-head check, deadlines, lingering close), by bufferevent.
    private var guards: [OpaquePointer: ConnectionGuard] = [:]
    /// Guards of connections accepted in this turn of the loop, attached by `attachEvent` right after.
    private var unattached: [ConnectionGuard] = []
    private var attachEvent: OpaquePointer?
    /// The one buffer every stream of this loop assembles its chunk in (evhttp moves it into the
    /// connection's output at once), instead of a buffer held by each open stream.
    let chunk: OpaquePointer? = evbuffer_new()

    /// Largest write handed to the kernel at once (libevent's default of 16 KiB splits a 23 KB reply).
    static let maxSingleWrite = 4 << 20

    /// Sets up the `evhttp` on `loop` (not yet running) and starts accepting on a duplicate of `socket`;
    /// `bodyFiles` and `peerStreams` as the properties say.
    package init(
        loop: EventLoop, service: HTTPService, limits: ListenerLimits, socket: ListeningSocket,
        bodyFiles: String? = nil, peerStreams: PeerStreams? = nil
    ) throws(LibEventError) {
        guard let http = evhttp_new(loop.base) else { throw LibEventError("evhttp_new failed") }
        self.loop = loop
        self.service = service
        self.http = http
        writeTimeout = LoopTimer.timeval(seconds: limits.timeout)
        self.limits = limits
        self.bodyFiles = bodyFiles
        self.peerStreams = peerStreams

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
            { base, context in
                Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().makeBufferEvent(base)
            }, context)
        // NB: evhttp makes its connection around the bufferevent only after `makeBufferEvent` returns, and
        // offers no callback then; an event made active now runs later in this same turn of the loop, before
        // any read on the new socket.
        attachEvent = event_new(
            loop.base, -1, 0,
            { _, _, context in
                Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().attachNewConnections()
            }, context)

        let descriptor = try socket.duplicate()
        guard let bound = evhttp_accept_socket_with_handle(http, descriptor) else {
            close(descriptor)
            evhttp_free(http)
            throw LibEventError("evhttp_accept_socket_with_handle failed")
        }
        self.bound = bound
        acceptGuard = evhttp_bound_socket_get_listener(bound).map {
            AcceptGuard(listener: $0, loop: loop, socket: ObjectIdentifier(socket))
        }
    }

    deinit {
        // NB: the sockets are taken before evhttp frees the connections, which would otherwise shut down
        // each descriptor after its bufferevent closed it (a number another thread may have reused by then).
        let sockets = guards.values.map { $0.takeSocket() }
        for connectionGuard in guards.values { connectionGuard.detach() }
        guards = [:]
        if let attachEvent { event_free(attachEvent) }
        evhttp_free(http)
        for socket in sockets where socket >= 0 { close(socket) }
        if let chunk { evbuffer_free(chunk) }
    }

    // MARK: Shutdown

    /// Stops accepting new connections (open ones keep being served); on the loop.
    package func stopAccepting() {
        precondition(loop.inLoop)
        if let bound {
            acceptGuard?.invalidate()
            acceptGuard = nil
            // NB: this listener's duplicate of the listening socket is closed a loop turn later: with the epoll
            // changelist (`EventLoop.makeBase`) its removal from this loop's set waits for the next turn, and
            // closed before, the other loops' copies would keep it there, ready on every turn while a
            // connection waits in the backlog.
            evhttp_bound_socket_get_listener(bound).map { _ = evconnlistener_disable($0) }
            closingBound = bound
            self.bound = nil
            loop.schedule(after: 1e-6) { [self] in
                if let closingBound { evhttp_del_accept_socket(http, closingBound) }
                closingBound = nil
            }
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

    /// Each accepted connection's bufferevent: large single writes, the error-page rewrite and its guard.
    private func makeBufferEvent(_ base: OpaquePointer?) -> OpaquePointer? {
        // NB: closed on free, so that evhttp does not close the socket itself (http.c,
        // `evhttp_connection_free`): the guard takes it from the bufferevent when evhttp closes the
        // connection, and closes it once the loop has applied its epoll changes (`ConnectionGuard.closed`).
        guard let bev = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
        bufferevent_set_max_single_write(bev, Self.maxSingleWrite)
        ErrorPages.install(on: bufferevent_get_output(bev))
        let connectionGuard = ConnectionGuard(bev: bev, listener: self, limits: limits)
        // NB: a bufferevent freed without evhttp's close callback (evhttp out of memory) left a stale entry.
        guards[bev]?.detach()
        guards[bev] = connectionGuard
        unattached.append(connectionGuard)
        acceptGuard?.setOpenConnections(guards.count)
        acceptGuard?.accepted()
        if let attachEvent { event_active(attachEvent, EV_TIMEOUT, 0) }
        return bev
    }

    private func attachNewConnections() {
        let fresh = unattached
        unattached = []
        for connectionGuard in fresh { connectionGuard.attach() }
        acceptGuard?.turnEnded()
    }

    /// evhttp closed the connection of `connectionGuard`.
    func connectionClosed(_ connectionGuard: ConnectionGuard) {
        if guards[connectionGuard.bev] === connectionGuard { guards[connectionGuard.bev] = nil }
        acceptGuard?.setOpenConnections(guards.count)
    }

    private func guardOf(_ raw: UnsafeMutablePointer<evhttp_request>) -> ConnectionGuard? {
        evhttp_request_get_connection(raw).flatMap(evhttp_connection_get_bufferevent).flatMap { guards[$0] }
    }

    // MARK: Requests

    private func handle(_ raw: UnsafeMutablePointer<evhttp_request>) {
        let arrived = RequestLog.now()
        guardOf(raw)?.requestArrived(raw)
        guard let method = Self.method(evhttp_request_get_command(raw)) else {
            send(
                Response(error: unservedMethod(raw)), to: raw,
                log: RequestLog(method: .get, path: "?", arrived: arrived))
            return
        }
        let (target, authority) = Self.target(raw)
        var request = Request(
            method, target, headers: Self.headers(evhttp_request_get_input_headers(raw)),
            body: Self.body(evhttp_request_get_input_buffer(raw)))
        let log = RequestLog(method: method, path: request.path, arrived: arrived)
        let isHTTP11 = EvhttpInternals.isHTTP11(raw)
        if let error = request.wireFramingError(isHTTP11: isHTTP11) {
            send(Response(error: error), to: raw, log: log)
            return
        }
        // NB: after the framing check, which wants exactly one `Host` field whatever the target's form.
        if let authority { request.headers["Host"] = authority }
        switch service.respond(to: request) {
        case .response(let response):
            send(response, to: raw, log: log)
        case .later(let start):
            pendingReplies.add(1, ordering: .relaxed)
            let pending = PendingReply(listener: self, request: raw, log: log)
            start { response in pending.complete(response) }
        case .stream(let status, let headers, _) where method == .head:
            // The stream's headers and nothing else; the connection goes on with the next request.
            send(Response(status: status, headers: headers), to: raw, log: log, lengthOfGet: false)
        case .stream(let status, let headers, let start):
            startStream(raw, status: status, headers: headers, start: start, log: log)
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
        let allowed = service.router.allowedMethods(for: rawPath)
        var error =
            allowed.isEmpty
            ? HTTPError.notFound("no route for \(PercentDecoding.decode(Substring(rawPath)))")
            : HTTPError.methodNotAllowed(nil, allowed: allowed)
        error.headers["Connection"] = "close"
        return error
    }

    /// Sends a complete response; on the loop.
    func send(
        _ response: Response, to raw: UnsafeMutablePointer<evhttp_request>, log: RequestLog,
        lengthOfGet: Bool = true
    ) {
        precondition(loop.inLoop)
        let output = evhttp_request_get_output_headers(raw)
        let wire = PreparedWire.of(response, bodyFiles: bodyFiles)
        // `reason`: the status line's reason phrase with a prepared answer's header lines (`PreparedWire`),
        // or nil: evhttp's phrase, and the fields added one by one.
        func reply(_ reason: UnsafePointer<CChar>?) {
            if reason == nil {
                for field in response.headers where Self.addHeader(output, field.name, field.value) != 0 {
                    Log.error("dropped invalid response header \(field.name)")
                }
            }
            if log.method == .head {
                // evhttp sends no body and no length for HEAD; say what GET would send.
                if lengthOfGet, !response.headers.contains("Content-Length") {
                    evhttp_add_header(output, "Content-Length", String(response.body.count))
                }
            } else if let wire {
                if wire.sendsFile { Self.cork(raw) }
                wire.appendBody(of: response, to: evhttp_request_get_output_buffer(raw))
            } else if !response.body.isEmpty {
                ByteBox.append(response.body, to: evhttp_request_get_output_buffer(raw))
            }
            // NB: evhttp adds a `Date` to HTTP/1.1 answers only, formatted per response; this one is made once a
            // second. A prepared block never holds one (`PreparedWire.evhttpFields`).
            if EvhttpInternals.isHTTP11(raw), reason != nil || !response.headers.contains("Date") {
                date.withValue { _ = evhttp_add_header(output, "Date", $0) }
            }
            EvhttpInternals.sendReply(raw, status: response.status, reason: reason)
        }
        if let wire { wire.withHead(of: response, reply) } else { reply(nil) }
        log.write(status: response.status, to: requestLog)
    }

    /// Holds the head of an answer whose body goes from a file (`TCP_CORK`) until the body follows, released
    /// when the connection's output has drained. libevent writes the head (`writev`) and the file
    /// (`sendfile`) one after the other; uncorked, the head leaves as a small segment of its own, which wakes
    /// the client once more per response. The kernel sends corked bytes after 200 ms at the latest, should
    /// the drain never come.
    private static func cork(_ raw: UnsafeMutablePointer<evhttp_request>) {
        guard let bev = evhttp_request_get_connection(raw).flatMap(evhttp_connection_get_bufferevent) else { return }
        let descriptor = bufferevent_getfd(bev)
        var on: Int32 = 1
        guard setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_CORK, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
        else { return }
        // NB: the descriptor travels as the context (plus one: 0 must not be nil); the callback is freed with
        // the buffer if the connection closes first.
        let context = UnsafeMutableRawPointer(bitPattern: Int(descriptor) + 1)
        _ = evbuffer_add_cb(bufferevent_get_output(bev), uncork, context)
    }

    /// The output buffer's callback after `cork`: once it is empty, lets the held bytes go and removes itself.
    private static let uncork: evbuffer_cb_func = { buffer, _, context in
        guard evbuffer_get_length(buffer) == 0 else { return }
        var off: Int32 = 0
        let descriptor = Int32(Int(bitPattern: context) - 1)
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_CORK, &off, socklen_t(MemoryLayout<Int32>.size))
        evbuffer_remove_cb(buffer, HTTPListener.uncork, context)
    }

    func replyFinished() {
        pendingReplies.subtract(1, ordering: .relaxed)
    }

    // MARK: Streams

    private func startStream(
        _ raw: UnsafeMutablePointer<evhttp_request>, status: Int, headers: HTTPHeaders,
        start: @Sendable (any HTTPStream) -> Void, log: RequestLog
    ) {
        // One client must not hold every stream: a slot of its address first, or the 429 (`PeerStreams`).
        var peer: String?
        if let peerStreams, peerStreams.limit > 0, let address = Self.peerAddress(raw) {
            guard peerStreams.take(address) else {
                send(peerStreams.refusal(corsOf: headers), to: raw, log: log)
                return
            }
            peer = address
        }
        let output = evhttp_request_get_output_headers(raw)
        for field in headers { Self.addHeader(output, field.name, field.value) }
        evhttp_send_reply_start(raw, Int32(status), nil)
        // NB: the head is in the output now and the stream holds the request for as long as it lasts: its
        // header list is freed. evhttp reads it once more at the end only for `Connection: close`, which no
        // stream head carries (the framing checks answer those requests before a stream starts).
        if !headers.contains("Connection") { evhttp_clear_headers(output) }
        Self.releaseRequestHead(raw)
        let connectionGuard = guardOf(raw)
        connectionGuard?.streamStarted()
        guard let connection = evhttp_request_get_connection(raw) else {
            if let peer { peerStreams?.give(peer) }
            evhttp_send_reply_end(raw)
            return
        }
        let stream = LibEventStream(
            listener: self, request: raw, connection: connection, connectionGuard: connectionGuard,
            writeTimeout: writeTimeout)
        stream.peer = peer
        streams[ObjectIdentifier(stream)] = stream
        log.write(status: status, note: " (stream)", to: requestLog)
        start(stream)
    }

    func streamEnded(_ stream: LibEventStream) {
        streams[ObjectIdentifier(stream)] = nil
        if let peer = stream.peer { peerStreams?.give(peer) }
    }
}
