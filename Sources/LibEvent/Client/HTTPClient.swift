import CEvent
package import Foundation
import Synchronization

/// A non-blocking HTTP/1.1 client on an `EventLoop`: `evhttp_make_request` on the loop's own `event_base`,
/// names resolved with `evdns`, so a download never blocks the loop that also serves requests.
///
/// `https` goes through the same `evhttp` connection on a libevent OpenSSL bufferevent (`TLSClientContext`:
/// the certificate and the host name verified), so both schemes have the same limits while bytes arrive:
/// every fetch ends after `timeout` seconds at the latest (`.timedOut`), follows up to `maxRedirects`
/// redirects, stops reading a body as soon as it passes `maxResponseSize` (`.tooLarge`), and closes its
/// connection when cancelled.
///
/// ```swift
/// let client = HTTPClient(loop: loop)
/// let task = client.get(URL(string: "http://127.0.0.1:3000/posts")!) { result in print(result) }
/// task.cancel()  // closes the connection; the completion is not called
/// ```
package final class HTTPClient: @unchecked Sendable {
    // NB: @unchecked because `dnsBase` is created and used only on `loop`'s thread.

    /// What a fetch delivers: the body and the response head, as `URLSession.dataTaskPublisher` does.
    package typealias Output = (data: Data, response: Response)
    /// Called once per fetch, on the loop's thread.
    package typealias Completion = @Sendable (Result<Output, Failure>) -> Void

    /// The loop whose `event_base` carries the connections.
    package let loop: EventLoop
    /// Seconds from the start of a fetch (redirects included) to `.timedOut`.
    package let timeout: Double
    /// Redirects followed before `.tooManyRedirects`.
    package let maxRedirects: Int
    /// Largest response body accepted, in bytes.
    package let maxResponseSize: Int
    /// The TLS settings of `https` fetches; nil makes them fail (`.secureConnectionFailed`).
    let tls: TLSClientContext?

    private var dnsBase: OpaquePointer?
    /// What relative URLs (`/placeholder/600/92c952`) resolve against: the server's own address.
    private let relativeBase = Mutex<URL?>(nil)

    /// A client on `loop` with the service's limits (10 s, 5 redirects, 16 MiB), trusting the system's
    /// certificate authorities unless `tls` says otherwise.
    package init(
        loop: EventLoop, timeout: Double = 10, maxRedirects: Int = 5, maxResponseSize: Int = 16 << 20,
        tls: TLSClientContext? = TLSClientContext.system
    ) {
        self.loop = loop
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.maxResponseSize = maxResponseSize
        self.tls = tls
    }

    deinit {
        // NB: every task retains the client until it ends, so no lookup is pending here.
        if let dnsBase { evdns_base_free(dnsBase, 0) }
    }

    /// Makes relative URLs resolve against `url` (the server's own `http://HOST:PORT`), so a selected
    /// `/placeholder/…` photo is downloaded from this server through the same client.
    package func resolveRelativeURLs(against url: URL) {
        relativeBase.withLock { $0 = url }
    }

    /// Starts a GET of `url` from any thread; `completion` runs once on the loop unless the task is
    /// cancelled first. A relative `url` resolves against `resolveRelativeURLs(against:)`.
    @discardableResult
    package func get(_ url: URL, completion: @escaping Completion) -> HTTPClientTask {
        let base = relativeBase.withLock { $0 }
        let absolute = url.scheme == nil ? URL(string: url.relativeString, relativeTo: base)?.absoluteURL ?? url : url
        let task = HTTPClientTask(client: self, url: absolute, completion: completion)
        loop.executeNowOrLater { task.start() }
        return task
    }

    /// The loop's asynchronous resolver, made on first use; nil when libevent cannot make one
    /// (then only numeric addresses connect).
    func resolver() -> OpaquePointer? {
        precondition(loop.inLoop, "the resolver belongs to the loop's thread")
        if dnsBase == nil {
            let flags = EVDNS_BASE_INITIALIZE_NAMESERVERS | EVDNS_BASE_DISABLE_WHEN_INACTIVE
            dnsBase = evdns_base_new(loop.base, Int32(flags))
        }
        return dnsBase
    }
}
