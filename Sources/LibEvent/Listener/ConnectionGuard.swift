import CEvent
import Glibc
import HTTP

/// What evhttp (libevent 2.1) does not guard on an accepted connection, done beside it:
///
/// - The raw head is checked (`RawRequestCheck`) before evhttp parses it, and chunk extensions made readable
///   to it (`ChunkedBodyCheck`), by an evbuffer callback on the input, which runs inside the read before evhttp's
///   read callback (bufferevent_sock.c: `evbuffer_read`, then `bufferevent_trigger_nolock_`): no byte reaches
///   evhttp unchecked. A bad head is answered 400 and the connection closed, never parsed by evhttp.
/// - Deadlines: a head within `headTimeout` of its first byte, and of the accept for a connection's first
///   head (one that never sends is closed unanswered); a body within a time that grows with its declared
///   length. evhttp's own timeout (a kept-alive connection's idle wait) restarts at every byte.
/// - The lingering close: when the connection closes while the client may still be sending (an early
///   413, a refused head, unread bytes), it is read and discarded for a bounded time (`LingeringClose`),
///   because a close with unread input makes the kernel send a reset that destroys the answer.
///
/// Lives on the listener's loop, owned by the listener until evhttp's close callback (run before the free).
final class ConnectionGuard {
    private enum Phase {
        /// Reading a head (or waiting for the next one on a kept-alive connection).
        case head
        /// Reading a body evhttp reads.
        case body
        /// The request is with the service; bytes that arrive belong to the next one.
        case served
        /// Being closed by the guard, or already closed.
        case closing
    }

    let bev: OpaquePointer
    private weak var listener: HTTPListener?
    private let limits: ListenerLimits
    private let input: OpaquePointer?
    private var inputCallback: OpaquePointer?
    /// The deadline's event, made when first armed and freed while a stream holds the connection.
    var timer: OpaquePointer?
    /// Set by `release()`: no timer is made again.
    var released = false
    private var connection: OpaquePointer?
    private var phase = Phase.head
    var deadlineArmed = false
    /// Bytes of the connection's input stream so far: drained from the buffer, and fed to the checks.
    private var drained = 0
    private var fed = 0
    /// Where the current head and the current chunked body start, in the input stream.
    private var headOrigin = 0
    private var bodyOrigin = 0
    /// The current head's checks; nil until its first byte.
    private var reading: HeadReading?
    /// Whether bytes past the current head are still checked (no for a `Content-Length` body).
    private var feeding = true
    /// The answer to a bad head that arrived while the previous request was being served.
    private var pendingRejection: [UInt8]?
    /// The guard refused the head or the body: the client may still be sending it.
    private var lingerWanted = false
    /// A deadline closed the connection: the client is too slow for lingering to help.
    private var lingerForbidden = false
    /// Called when the connection closes (a stream's clean-up).
    var onClose: (() -> Void)?

    init(bev: OpaquePointer, listener: HTTPListener, limits: ListenerLimits) {
        self.bev = bev
        self.listener = listener
        self.limits = limits
        input = bufferevent_get_input(bev)
        let context = Unmanaged.passUnretained(self).toOpaque()
        inputCallback = evbuffer_add_cb(
            input,
            { _, info, context in
                guard let info, let context else { return }
                Unmanaged<ConnectionGuard>.fromOpaque(context).takeUnretainedValue()
                    .inputChanged(added: info.pointee.n_added, deleted: info.pointee.n_deleted)
            }, context)
    }

    /// Called once evhttp made its connection around `bev` (right after the accept, before any read).
    func attach() {
        var context: UnsafeMutableRawPointer?
        bufferevent_getcb(bev, nil, nil, nil, &context)
        guard let context, connection == nil else { return }
        let connection = OpaquePointer(context)
        self.connection = connection
        if !deadlineArmed { arm(after: limits.headTimeout) }
        evhttp_connection_set_closecb(
            connection,
            { _, context in
                guard let context else { return }
                Unmanaged<ConnectionGuard>.fromOpaque(context).takeUnretainedValue().closed()
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The connection is being reset on purpose (a slow `/events` reader cut off): no lingering close,
    /// which would keep the socket open and turn the reset into an orderly end.
    func forbidLingering() {
        lingerForbidden = true
    }

    /// Stops every callback without closing anything (the listener is going away).
    func detach() {
        if let connection { evhttp_connection_set_closecb(connection, nil, nil) }
        release()
    }

    // MARK: Requests

    /// evhttp handed the request to the listener: the bytes after it are the next head.
    func requestArrived(_ request: UnsafeMutablePointer<evhttp_request>) {
        guard phase != .closing else { return }
        phase = .served
        disarm()
        evhttp_request_set_on_complete_cb(
            request,
            { request, context in
                guard let request, let context else { return }
                Unmanaged<ConnectionGuard>.fromOpaque(context).takeUnretainedValue().responseSent(request)
            }, Unmanaged.passUnretained(self).toOpaque())
        startHead(at: drained)
        feedNewBytes()
    }

    /// evhttp wrote the whole response (its `on_complete` callback, before it reads the next request).
    private func responseSent(_ request: UnsafeMutablePointer<evhttp_request>) {
        if let rejection = pendingRejection {
            // NB: evhttp decides to close, instead of reading the next request, after this callback, from the
            // first `Connection` field of the response (http.c, `evhttp_send_done`). A response that closes
            // anyway is the answer: what follows it was never a request.
            let headers = evhttp_request_get_output_headers(request)
            if !ConnectionFacts.closes(request) {
                while evhttp_remove_header(headers, "Connection") == 0 {}
                evhttp_add_header(headers, "Connection", "close")
                sendDirectly(rejection)
            }
            pendingRejection = nil
            lingerWanted = true
            phase = .closing
            return
        }
        if let completedHead = reading?.completed, bodyExpected(completedHead) {
            phase = .body
            arm(after: bodyDeadline(completedHead))
        } else {
            phase = .head
            if evbuffer_get_length(input) > 0 { arm(after: limits.headTimeout) }
        }
    }

    // MARK: Input

    private func inputChanged(added: Int, deleted: Int) {
        drained += deleted
        guard added > 0, phase != .closing else { return }
        if phase == .head, !deadlineArmed { arm(after: limits.headTimeout) }
        feedNewBytes()
    }

    private func startHead(at origin: Int) {
        reading = nil
        headOrigin = origin
        fed = origin
        feeding = true
    }

    /// Feeds the checks every byte in the input buffer they have not seen.
    private func feedNewBytes() {
        guard feeding, let input else { return }
        fed = max(fed, drained)
        let length = evbuffer_get_length(input)
        let start = fed - drained
        guard length > start else { return }
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(input, &position, start, EVBUFFER_PTR_SET) == 0 else { return }
        // NB: new bytes are mostly in one chunk of the buffer, fed without making an array; more chunks take a
        // second look.
        var first = iovec()
        let count = Int(evbuffer_peek(input, length - start, &position, &first, 1))
        guard count > 0 else { return }
        if count == 1 {
            guard let base = first.iov_base?.assumingMemoryBound(to: UInt8.self) else { return }
            return feed(UnsafeMutableBufferPointer(start: base, count: min(first.iov_len, length - start)))
        }
        var vectors = [iovec](repeating: iovec(), count: count)
        _ = evbuffer_peek(input, length - start, &position, &vectors, Int32(count))
        var remaining = length - start
        for vector in vectors where feeding && remaining > 0 {
            let size = min(vector.iov_len, remaining)
            remaining -= size
            guard let base = vector.iov_base?.assumingMemoryBound(to: UInt8.self) else { continue }
            feed(UnsafeMutableBufferPointer(start: base, count: size))
        }
    }

    /// One contiguous run of new bytes, starting at stream offset `fed`.
    private func feed(_ bytes: UnsafeMutableBufferPointer<UInt8>) {
        let reading = self.reading ?? HeadReading(limit: limits.maxHeadersSize)
        self.reading = reading
        var index = 0
        while feeding, index < bytes.count {
            let offset = fed
            if var body = reading.chunks {
                // NB: the `;` that starts a chunk extension becomes a space, which evhttp reads past.
                for semicolon in body.feed(UnsafeBufferPointer(rebasing: bytes[index...])) {
                    bytes[index + semicolon - (offset - bodyOrigin)] = 0x20
                }
                reading.chunks = body
                switch body.verdict {
                case .incomplete:
                    fed += bytes.count - index
                    index = bytes.count
                case .complete(let length):
                    fed = bodyOrigin + length
                    feeding = false
                case .invalid(let reason):
                    refuse(HTTPError(400, "bad_request", "the chunked body is not valid: \(reason)"))
                case .tooLarge: refuse(.payloadTooLarge, headers: reading.tooLargeHeaders)
                }
                continue
            }
            switch reading.head.feed(UnsafeBufferPointer(rebasing: bytes[index...])) {
            case .incomplete:
                fed += bytes.count - index
                index = bytes.count
            case .invalid(let reason):
                refuse(HTTPError(400, "bad_request", "the request is not valid HTTP: \(reason)"))
            case .complete(let sound):
                fed = headOrigin + sound.length
                index += fed - offset
                headCompleted(sound)
            }
        }
    }

    private func headCompleted(_ sound: RawRequestCheck.Head) {
        reading?.completed = sound
        // NB: refused here, not after evhttp's parse: evhttp's reading of a coding list varies (Debian's
        // 2.1.12 reads `gzip, chunked` as chunked), and a body it does not read would be the next request.
        if !sound.transferEncodings.isEmpty, let error = Request.transferCodingError(sound.transferEncodings) {
            return refuse(error)
        }
        // A body over the limit (a chunked one once its sizes pass it) is answered here, not by evhttp's own 413,
        // so that the answer carries the CORS headers an allowed page needs to read it (not "Failed to fetch").
        if sound.chunked || (sound.contentLength ?? 0) > limits.maxBodySize, Self.bodyMethods.contains(sound.method) {
            var headers: HTTPHeaders = [:]
            let origin = HeadField.value("Origin", in: input, from: headOrigin - drained, length: sound.length)
            listener?.cors?.decorate(&headers, origin: origin)
            reading?.tooLargeHeaders = headers
            if !sound.chunked { return refuse(.payloadTooLarge, headers: headers) }
        }
        // NB: the framing first: most heads declare no body, and then no method name is hashed.
        guard sound.chunked || (sound.contentLength ?? 0) > 0, Self.bodyMethods.contains(sound.method) else {
            feeding = false
            return
        }
        if sound.chunked {
            reading?.chunks = ChunkedBodyCheck(maxData: limits.maxBodySize)
            bodyOrigin = fed
        } else {
            feeding = false
        }
        if phase == .head {
            phase = .body
            arm(after: bodyDeadline(sound))
        }
    }

    /// The methods whose body evhttp 2.1.12 reads (http.c, `evhttp_method_may_have_body`).
    private static let bodyMethods: Set<String> = ["POST", "PUT", "PATCH", "GET", "DELETE", "OPTIONS", "CONNECT"]

    private func bodyExpected(_ sound: RawRequestCheck.Head) -> Bool {
        (sound.chunked || (sound.contentLength ?? 0) > 0) && Self.bodyMethods.contains(sound.method)
    }

    /// The head timeout, plus the declared length at the minimum rate; a chunked body gets the cap.
    private func bodyDeadline(_ sound: RawRequestCheck.Head) -> Double {
        guard let length = sound.contentLength, !sound.chunked else { return limits.maxBodyTime }
        return min(limits.maxBodyTime, limits.headTimeout + Double(length) / Double(limits.minBodyRate))
    }

    // MARK: Refusing

    /// Answers `error` and closes: now when evhttp is reading the bad bytes, after the current response
    /// when they came pipelined behind a request being served.
    private func refuse(_ error: HTTPError, headers: HTTPHeaders = [:]) {
        feeding = false
        let bytes = GuardResponse.bytes(error, bodyless: isHEAD, headers: headers)
        guard phase != .served else {
            pendingRejection = bytes
            return
        }
        // NB: a low watermark no input reaches keeps evhttp's read callback from running for the bytes just
        // read (this callback runs inside that read); then the connection is closed from the timer.
        bufferevent_setwatermark(bev, Int16(EV_READ), Int(Int32.max), 0)
        bufferevent_disable(bev, Int16(EV_READ))
        pendingRejection = bytes
        lingerWanted = true
        phase = .closing
        if let timer = ensureTimer() {
            event_del(timer)
            event_active(timer, EV_TIMEOUT, 0)
        }
    }

    /// A stream (`/events`) holds the connection for long: its idle deadline event is freed (a stream has
    /// no deadline here), so a held connection keeps less memory; it is made again if a request follows.
    func streamStarted() {
        disarm()
        if let timer { event_free(timer) }
        timer = nil
    }

    func timerFired() {
        deadlineArmed = false
        switch phase {
        case .closing:
            if let rejection = pendingRejection {
                pendingRejection = nil
                sendDirectly(rejection)
            }
            close()
        case .head where fed == 0:  // nothing ever arrived: no request to answer
            (phase, lingerForbidden) = (.closing, true)
            close()
        case .head, .body:
            lingerForbidden = true
            let slow = phase == .head ? "the request head" : "the request body"
            sendDirectly(
                GuardResponse.bytes(
                    HTTPError(408, "request_timeout", "\(slow) did not arrive in time"), bodyless: isHEAD))
            phase = .closing
            close()
        case .served:
            break
        }
    }

    private func close() {
        guard let connection else { return }
        withExtendedLifetime(self) { evhttp_connection_free(connection) }
    }

    /// Writes a small answer straight to the socket: evhttp is not writing (it is reading, or has just
    /// written everything), so the kernel's buffer takes it whole.
    private func sendDirectly(_ bytes: [UInt8]) {
        let descriptor = bufferevent_getfd(bev)
        guard descriptor >= 0 else { return }
        _ = bytes.withUnsafeBytes {
            Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
    }

    private var isHEAD: Bool { reading?.head.isHEAD ?? false }

    // MARK: Closing

    /// evhttp is closing the connection (its close callback, before it frees the bufferevent and closes
    /// the socket).
    private func closed() {
        let unfinished = phase == .body || (phase == .head && fed > headOrigin)
        phase = .closing
        let action = onClose
        onClose = nil
        action?()
        // NB: evhttp then only shuts down the sending side (the client gets the whole answer and an end of
        // stream); the socket is closed here, never before the loop removed its epoll entry (`takeSocket`).
        closeSocket { !lingerForbidden && (lingerWanted || unfinished || ConnectionFacts.hasUnreadInput($0)) }
        release()
        listener?.connectionClosed(self)
    }

    private func release() {
        released = true
        if let timer { event_free(timer) }
        timer = nil
        if let inputCallback { evbuffer_remove_cb_entry(input, inputCallback) }
        inputCallback = nil
        connection = nil
    }
}
