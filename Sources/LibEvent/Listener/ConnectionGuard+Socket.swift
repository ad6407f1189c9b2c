import CEvent
import Glibc

extension ConnectionGuard {
    /// The connection's socket, taken from its bufferevent, which then neither watches nor closes it: evhttp
    /// closes a connection by freeing its bufferevent (made to close on free, `HTTPListener.makeBufferEvent`),
    /// and the caller closes the socket instead.
    ///
    /// NB: with the epoll changelist (`EventLoop.makeBase`) the removal of the socket's epoll entry waits for
    /// the loop's next turn; the socket must stay open until then. Closed before, while another descriptor
    /// kept its file open (the old lingering close's `dup`), the entry would stay in the set, ready on every
    /// turn. So the lingering close reads this very socket, and any other close waits a turn
    /// (`LingeringClose.closeAfterTurn`).
    func takeSocket() -> Int32 {
        let descriptor = bufferevent_getfd(bev)
        if descriptor >= 0 { bufferevent_setfd(bev, -1) }
        return descriptor
    }

    /// Takes the socket (`takeSocket`) and closes it: after lingering (`LingeringClose`) when `linger` says so
    /// for it, otherwise after this turn of the loop.
    func closeSocket(linger: (Int32) -> Bool) {
        let descriptor = takeSocket()
        guard descriptor >= 0 else { return }
        guard let base = bufferevent_get_base(bev) else {
            Glibc.close(descriptor)
            return
        }
        if linger(descriptor) {
            LingeringClose.start(descriptor: descriptor, base: base)
        } else {
            LingeringClose.closeAfterTurn(descriptor, base: base)
        }
    }
}
