import CEvent
import Foundation
import HTTP
import Support
import Synchronization

/// Keeps one listener sane when the process runs out of descriptors (`accept` failing with EMFILE/ENFILE).
///
/// NB: evhttp's `evconnlistener` has no error callback, so libevent's answer to EMFILE is a warning and a
/// return: the connection stays in the backlog, the level-triggered listener fires again at once, and the
/// loop spins, logging a line per turn (hundreds of thousands a second) while the client waits forever.
/// This guard holds one spare descriptor: on EMFILE it frees it, accepts the waiting connection and closes
/// it at once (the client sees the connection closed, not a hang), then takes the spare back. When even
/// that fails, accepting pauses for a moment instead of spinning. Connections already open are untouched.
///
/// Every loop has a guard on its own listener of the one listening socket, so the loops race for a freed
/// descriptor. Two rules keep at least one guard holding a spare, so a waiting connection is always closed
/// rather than left to hang in the backlog:
/// - freeing a spare, the accept into it and taking it back happen under one process-wide lock, and a guard
///   without a spare takes one only under that lock, so no guard takes another's freed descriptor;
/// - a guard that has lost its spare (another loop's ordinary accept took the freed descriptor, which then
///   served a client) keeps its listener disabled until it has a spare again, so its ordinary accepts
///   cannot take the descriptor another guard frees.
///
/// The guard also spreads new connections over the loops: its listener accepts one connection per turn of
/// the loop, and waits a moment while its loop has more open connections than another (see `accepted`).
final class AcceptGuard: @unchecked Sendable {
    // NB: @unchecked because `spare` and `paused` are used on `loop`'s thread only (libevent calls the error
    // callback there, and `invalidate` runs there).

    private let listener: OpaquePointer
    private let socket: ObjectIdentifier
    private let loop: EventLoop
    private var spare: Int32
    private var paused = false
    /// Off for the rest of this turn after an accept (`accepted`), on again in `turnEnded`.
    private var heldForTurn = false
    /// This loop's open connections, read by the other loops' guards (`isAheadOfAnotherLoop`).
    private let openConnections = Atomic<Int>(0)
    /// Set while `turnEnded` keeps the listener off because this loop is ahead of another.
    private let waitingWhileAhead = Atomic<Bool>(false)
    /// False once `invalidate` ran: the listener is being freed and must not be enabled again.
    private var installed = true
    private var lastWarning: UInt64 = 0
    private var refusedSinceWarning = 0

    /// The guards by their `evconnlistener`: libevent hands the error callback evhttp's context, not ours.
    private static let guards = Mutex<[Int: AcceptGuard]>([:])

    /// Held from freeing a spare until it is taken back, and while a guard without one opens one.
    private static let spareExchange = Mutex(())

    /// Installs the guard on `listener` (an `evhttp` bound socket's `evconnlistener`), on `loop`; `socket`
    /// names the listening socket the listener accepts on (its loops are the ones it compares with).
    init(listener: OpaquePointer, loop: EventLoop, socket: ObjectIdentifier) {
        self.listener = listener
        self.loop = loop
        self.socket = socket
        spare = Self.openSpare()
        Self.guards.withLock { $0[Self.key(listener)] = self }
        evconnlistener_set_error_cb(listener) { listener, _ in
            guard let listener else { return }
            let error = errno
            let found = AcceptGuard.guards.withLock { $0[AcceptGuard.key(listener)] }
            found?.acceptFailed(error)
        }
    }

    deinit {
        if spare >= 0 { close(spare) }
    }

    /// Detaches from the listener before evhttp frees it; on the loop.
    func invalidate() {
        precondition(loop.inLoop)
        _ = Self.guards.withLock { $0.removeValue(forKey: Self.key(listener)) }
        installed = false
        if spare >= 0 {
            close(spare)
            spare = -1
        }
    }

    // MARK: One accept per turn

    /// How many connections this loop has open; on the loop, whenever that changes.
    func setOpenConnections(_ count: Int) {
        openConnections.store(count, ordering: .relaxed)
    }

    /// The listener accepted a connection; on the loop, from evhttp's accept (`HTTPListener.makeBufferEvent`).
    ///
    /// Disables the listener for the rest of this turn. libevent's listener otherwise accepts until the
    /// backlog is empty, so the loop that wakes first takes a whole burst of connections (a client's 64
    /// keep-alive connections often all landed on one of two loops, and stayed there) while the others find
    /// none. The epoll changelist turns a disable and an enable within one turn into at most one system call.
    func accepted() {
        guard installed, !paused, !heldForTurn else { return }
        heldForTurn = true
        evconnlistener_disable(listener)
    }

    /// This turn's new connections are attached: accepting goes on, unless it is paused. A loop with more
    /// open connections than another waits instead, so the others (woken by the same listening socket) take
    /// the next ones. It goes on as soon as a loop that accepted finds it no longer ahead, or after
    /// `aheadWait` at the latest, so a neighbour stuck in a long callback slows its accepts but cannot stop
    /// them. The loop with the fewest connections never waits, so some loop is always accepting.
    func turnEnded() {
        guard heldForTurn else { return }
        heldForTurn = false
        guard installed, !paused else { return }
        if isAheadOfAnotherLoop() {
            waitingWhileAhead.store(true, ordering: .relaxed)
            loop.schedule(after: Self.aheadWait) { [self] in resumeAfterWaiting() }
        } else {
            evconnlistener_enable(listener)
        }
        let waiting = Self.guards.withLock { guards in
            guards.values.filter {
                $0 !== self && $0.socket == socket && $0.waitingWhileAhead.load(ordering: .relaxed)
            }
        }
        for other in waiting where !other.isAheadOfAnotherLoop() {
            other.loop.execute { other.resumeAfterWaiting() }
        }
    }

    /// Ends a wait of `turnEnded` (once, whichever comes first: the timer or another loop); on the loop.
    private func resumeAfterWaiting() {
        guard waitingWhileAhead.exchange(false, ordering: .relaxed) else { return }
        if installed, !paused, !heldForTurn { evconnlistener_enable(listener) }
    }

    /// How long a loop ahead of another waits at most before it accepts again.
    static let aheadWait = 0.001
    /// How many more open connections than another loop make a loop wait.
    static let aheadBy = 2

    private func isAheadOfAnotherLoop() -> Bool {
        let mine = openConnections.load(ordering: .relaxed)
        return Self.guards.withLock { guards in
            guards.values.contains {
                $0 !== self && $0.socket == socket && $0.openConnections.load(ordering: .relaxed) + Self.aheadBy < mine
            }
        }
    }

    // MARK: Out of descriptors

    private func acceptFailed(_ error: Int32) {
        guard error == EMFILE || error == ENFILE else {
            Log.error("accept failed: \(String(cString: strerror(error)))")
            return
        }
        let accepted: Int32 = Self.spareExchange.withLock { _ in
            guard spare >= 0 else {
                spare = Self.openSpare()
                return -1
            }
            close(spare)
            let accepted = accept(evconnlistener_get_fd(listener), nil, nil)
            if accepted >= 0 { close(accepted) }
            spare = Self.openSpare()
            return accepted
        }
        refusedSinceWarning += accepted >= 0 ? 1 : 0
        warnAtMostEverySecond()
        if accepted < 0 || spare < 0 { pause() }
    }

    /// Stops accepting for 100 ms, so a loop with no descriptor to spare does not spin; a guard without a
    /// spare stays paused, trying every 100 ms, until it has one.
    private func pause() {
        guard !paused else { return }
        paused = true
        evconnlistener_disable(listener)
        resumeLater()
    }

    private func resumeLater() {
        loop.schedule(after: 0.1) { [self] in
            // The listener is still ours unless `invalidate` ran meanwhile.
            guard paused, installed else { return }
            if spare < 0 {
                Self.spareExchange.withLock { _ in spare = Self.openSpare() }
                guard spare >= 0 else { return resumeLater() }
            }
            paused = false
            evconnlistener_enable(listener)
        }
    }

    private func warnAtMostEverySecond() {
        let now = RequestLog.now()
        guard now - lastWarning >= 1_000_000_000 else { return }
        lastWarning = now
        Log.warning(
            "out of file descriptors: new connections are closed at once (\(refusedSinceWarning) since the last "
                + "warning); raise `ulimit -n`")
        refusedSinceWarning = 0
    }

    /// The registry key of an `evconnlistener`: its address.
    private static func key(_ listener: OpaquePointer) -> Int {
        Int(bitPattern: UnsafeMutableRawPointer(listener))
    }

    private static func openSpare() -> Int32 {
        open("/dev/null", O_RDONLY | O_CLOEXEC)
    }
}
