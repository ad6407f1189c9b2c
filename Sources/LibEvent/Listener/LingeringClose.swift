import CEvent
import Glibc
import HTTP

/// Reads and discards what a client still sends after the server closed its side, then closes.
///
/// A socket closed with unread input makes the kernel answer with a reset, and a reset makes the client's
/// kernel drop whatever it had not yet handed to the client: an early answer (413, 400) is then lost, and
/// the client sees `EPIPE` or `ECONNRESET` instead (what nginx's `lingering_close` avoids). Bounded: at most
/// `maxTime` seconds in all, `quietTime` without a byte, and `maxBytes` discarded.
final class LingeringClose {
    static let maxTime = 5.0
    static let quietTime = 2.0
    static let maxBytes = 8 << 20

    private let descriptor: Int32
    private var event: OpaquePointer?
    private var discarded = 0
    private let started = RequestLog.now()
    private var scratch = [UInt8](repeating: 0, count: 16 << 10)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Lingers on `descriptor` (the connection's socket, which the caller hands over) on `base`'s loop.
    static func start(descriptor: Int32, base: OpaquePointer) {
        let lingering = LingeringClose(descriptor: descriptor)
        // NB: the pending event holds the object; `finish` releases it.
        let context = Unmanaged.passRetained(lingering).toOpaque()
        guard
            let event = event_new(
                base, descriptor, Int16(EV_READ | EV_PERSIST),
                { _, what, context in
                    Unmanaged<LingeringClose>.fromOpaque(context!).takeUnretainedValue().readable(
                        timedOut: what & Int16(EV_TIMEOUT) != 0)
                }, context)
        else {
            Unmanaged<LingeringClose>.fromOpaque(context).release()
            Glibc.close(descriptor)
            return
        }
        lingering.event = event
        var quiet = LoopTimer.timeval(seconds: quietTime)
        event_add(event, &quiet)
    }

    /// Closes `descriptor` on `base`'s next turn, after the loop applied the epoll changes made for it in
    /// this one: a timer, since an event made active now could still run in this turn.
    static func closeAfterTurn(_ descriptor: Int32, base: OpaquePointer) {
        var soon = timeval(tv_sec: 0, tv_usec: 1)
        // NB: the descriptor travels as the context, plus one (0 must not be nil).
        let context = UnsafeMutableRawPointer(bitPattern: Int(descriptor) + 1)
        let closeIt: event_callback_fn = { _, _, context in _ = Glibc.close(Int32(Int(bitPattern: context) - 1)) }
        if event_base_once(base, -1, Int16(EV_TIMEOUT), closeIt, context, &soon) != 0 { Glibc.close(descriptor) }
    }

    private func readable(timedOut: Bool) {
        guard !timedOut else { return finish() }
        while true {
            let count = scratch.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 {
                discarded += count
                if discarded > Self.maxBytes { return finish() }
                continue
            }
            if count < 0, errno == EAGAIN || errno == EINTR { break }
            return finish()
        }
        if Double(RequestLog.now() - started) / 1e9 > Self.maxTime { finish() }
    }

    private func finish() {
        if let event { event_free(event) }
        event = nil
        Glibc.close(descriptor)
        Unmanaged.passUnretained(self).release()
    }
}
