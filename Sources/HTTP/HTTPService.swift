import Dispatch

/// The request pipeline above the router: the `Host` check, CORS preflight, the token check, routing, content negotiation
/// (ETag, 304, gzip), CORS headers and the Origin rule, `--delay` and a request's `_delay`.
///
/// The listener calls `respond(to:)` for every request; tests call it without a socket.
package struct HTTPService: Sendable {
    /// The route table, replaceable while the service runs (`routes`).
    package let routes: RouterSlot
    /// The route table now.
    package var router: Router { routes.router }
    /// The `--token` check; nil lets every request through.
    package let token: BearerToken?
    /// The `--cors` policy; nil sends no CORS headers.
    package let cors: CORSPolicy?
    /// The names requests may be addressed to (`--allowed-hosts`, and loopback ones); nil accepts every `Host`.
    package let hosts: HostPolicy?
    /// Seconds every reply waits before its work starts (`--delay`, json-server's, to see a front end's
    /// loading states); 0: none.
    package let delay: Double
    /// Whether JSON answers carry `Cache-Control: no-cache` (a data file's, as json-server's: a browser
    /// revalidates by `ETag` instead of showing a list it cached).
    package let noCache: Bool
    /// The paths `delay` spares (`/healthz`: a container's health check must not time out on it).
    package let undelayedPaths: Set<String>
    /// Whether a client that accepts gzip gets it (`--no-gzip` turns it off, as json-server's).
    package let gzip: Bool
    /// json-server's custom routes (`--routes`): each request's URL is rewritten by them (as they are when it
    /// arrives) before anything else looks at it; nil: none.
    package let rewrites: RewriteRules?

    package init(
        router: Router, token: String? = nil, cors: CORSPolicy? = nil, hosts: HostPolicy? = nil, delay: Double = 0,
        undelayedPaths: Set<String> = [], gzip: Bool = true, rewrites: RewriteRules? = nil, noCache: Bool = false
    ) {
        self.noCache = noCache
        self.rewrites = rewrites
        routes = RouterSlot(router)
        self.token = token.map(BearerToken.init)
        self.cors = cors
        self.hosts = hosts
        self.delay = delay
        self.undelayedPaths = undelayedPaths
        self.gzip = gzip
    }

    /// The reply to `request`.
    package func respond(to request: Request) -> Reply {
        var request = request
        if let rewrites {
            do throws(HTTPError) {
                request = try rewrites.apply(to: request)
            } catch {
                return .error(error)
            }
        }
        if !gzip { request.headers["Accept-Encoding"] = nil }
        var wait = undelayedPaths.contains(request.path) ? 0 : delay
        let reply: Reply
        do throws(HTTPError) {
            wait += try RequestDelay.take(from: &request)
            reply = answer(request)
        } catch {
            reply = answer(request, refusing: error)
        }
        return wait > 0 ? delayed(reply, by: wait) : reply
    }

    /// The answer; `refusing` (a malformed `_delay`) answers in place of the route once the checks every
    /// request goes through have passed.
    private func answer(_ request: Request, refusing: HTTPError? = nil) -> Reply {
        if let error = request.framingError { return .error(error) }
        // NB: before anything else answers, a preflight included: a rebound name learns nothing, not even the
        // routes.
        if let host = request.headers["Host"], !HostPolicy.isWellFormed(host) { return .error(.malformedHost) }
        if let hosts, !hosts.accepts(request.headers["Host"]) { return .error(.hostNotAllowed) }
        let origin = request.headers["Origin"]
        if origin == "null", cors?.allowedOrigin(for: origin) == nil { CORSPolicy.noteRefusedFilePage() }
        if let cors, request.method == .options, request.headers.contains("Access-Control-Request-Method") {
            return .response(cors.preflight(request, allowedMethods: router.allowedMethods(for: request.rawPath)))
        }
        // The Origin rule: a page may send a form to any site without a preflight, so a write from a page
        // that is neither ours nor allowed changes nothing.
        if request.method.isMutating, let origin, !request.isOwnOrigin(origin),
            cors?.allowedOrigin(for: origin) == nil
        {
            return decorated(.error(.originNotAllowed), for: request)
        }
        if let token, request.method.isMutating, !token.accepts(request.headers["Authorization"]) {
            return decorated(.error(.unauthorized), for: request)
        }
        if let refusing { return decorated(.error(refusing), for: request) }
        return decorated(negotiated(router.handle(request), for: request), for: request)
    }

    /// `reply` `delay` seconds late: a deferred reply's work (a write's commit) starts then, as if the request
    /// had arrived then; a complete one is sent then. A stream is not delayed: it waits for events anyway.
    // NB: one timer per request in flight, and a connection has one request in flight: bounded by the
    // listener's connection limit. The timer runs off the loop: the loop serves others meanwhile.
    private func delayed(_ reply: Reply, by delay: Double) -> Reply {
        switch reply {
        case .response(let response):
            return .later { respond in
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { respond(response) }
            }
        case .later(let start):
            return .later { respond in
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { start(respond) }
            }
        case .stream:
            return reply
        }
    }

    /// Entity tags, 304 and gzip (`ContentNegotiation`) on complete responses, before CORS adds its headers.
    private func negotiated(_ reply: Reply, for request: Request) -> Reply {
        guard request.method == .get || request.method == .head else { return reply }
        switch reply {
        case .response(let response):
            return .response(ContentNegotiation.apply(response, for: request))
        case .later(let start):
            return .later { respond in
                start { response in respond(ContentNegotiation.apply(response, for: request)) }
            }
        case .stream:
            return reply
        }
    }

    /// The CORS headers (`--cors`) and, with `noCache`, `Cache-Control: no-cache` on JSON answers and 304s.
    private func decorated(_ reply: Reply, for request: Request) -> Reply {
        guard cors != nil || noCache else { return reply }
        let (cors, noCache) = (cors, noCache)
        let origin = request.headers["Origin"]
        let decorate: @Sendable (inout Response) -> Void = { response in
            cors?.decorate(&response.headers, origin: origin)
            let json = response.headers["Content-Type"]?.hasPrefix("application/json") ?? false
            if noCache, json || response.status == 304, !response.headers.contains("Cache-Control") {
                response.headers["Cache-Control"] = "no-cache"
            }
        }
        switch reply {
        case .response(var response):
            decorate(&response)
            return .response(response)
        case .later(let start):
            return .later { respond in
                start { response in
                    var response = response
                    decorate(&response)
                    respond(response)
                }
            }
        case .stream(let status, var headers, let start):
            cors?.decorate(&headers, origin: origin)
            return .stream(status: status, headers: headers, start: start)
        }
    }
}
