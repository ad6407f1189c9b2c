import CEvent
import HTTP
import Support
import Synchronization

/// A `.later` reply: `complete` may run on any thread, exactly once; the send hops to the loop.
final class PendingReply: @unchecked Sendable {
    // NB: @unchecked because `request` is only dereferenced on the listener's loop.
    private let listener: HTTPListener
    private let request: UnsafeMutablePointer<evhttp_request>
    private let log: RequestLog
    private let done = Atomic<Bool>(false)

    init(listener: HTTPListener, request: UnsafeMutablePointer<evhttp_request>, log: RequestLog) {
        self.listener = listener
        self.request = request
        self.log = log
    }

    func complete(_ response: Response) {
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else {
            Log.error("\(log.method.rawValue) \(log.path): a reply was sent twice; the second is dropped")
            return
        }
        listener.loop.executeNowOrLater { [self] in
            // NB: if the client left meanwhile, libevent detached the request and frees it on this send.
            listener.send(response, to: request, log: log)
            listener.replyFinished()
        }
    }

    deinit {
        if !done.load(ordering: .acquiring) {
            Log.error("\(log.method.rawValue) \(log.path): the handler never replied")
        }
    }
}
