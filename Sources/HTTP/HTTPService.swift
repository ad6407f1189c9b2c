import Dispatch

/// The request pipeline above the router: the `Host` check, CORS preflight, the token check, routing, content negotiation
/// (ETag, 304, gzip), CORS headers, and `--delay`.
///
/// The listener calls `respond(to:)` for every request; tests call it without a socket.
package struct HTTPService: Sendable {
    /// The route table.
    package let router: Router
    /// The `--token` check; nil lets every request through.
    package let token: BearerToken?
    /// The `--cors` policy; nil sends no CORS headers.
    package let cors: CORSPolicy?
    /// The names requests may be addressed to (`--allowed-hosts`, and loopback ones); nil accepts every `Host`.
    package let hosts: HostPolicy?
    /// Seconds every reply waits before its work starts (`--delay`, json-server's, to see a front end's
    /// loading states); 0: none.
    package let delay: Double
    /// The paths `delay` spares (`/healthz`: a container's health check must not time out on it).
    package let undelayedPaths: Set<String>
    /// Whether a client that accepts gzip gets it (`--no-gzip` turns it off, as json-server's).
    package let gzip: Bool
    /// json-server's custom routes (`--routes`): each request's URL is rewritten by them before anything
    /// else looks at it; nil: none.
    package let rewrites: URLRewrites?

    package init(
        router: Router, token: String? = nil, cors: CORSPolicy? = nil, hosts: HostPolicy? = nil, delay: Double = 0,
        undelayedPaths: Set<String> = [], gzip: Bool = true, rewrites: URLRewrites? = nil
    ) {
        self.rewrites = rewrites
        self.router = router
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
        let reply = answer(request)
        return delay > 0 && !undelayedPaths.contains(request.path) ? delayed(reply) : reply
    }

    private func answer(_ request: Request) -> Reply {
        if let error = request.framingError { return .error(error) }
        // NB: before anything else answers, a preflight included: a rebound name learns nothing, not even the
        // routes.
        if let hosts, !hosts.accepts(request.headers["Host"]) { return .error(.hostNotAllowed) }
        if let cors, request.method == .options, request.headers.contains("Access-Control-Request-Method") {
            return .response(cors.preflight(request, allowedMethods: router.allowedMethods(for: request.rawPath)))
        }
        if let token, request.method.isMutating, !token.accepts(request.headers["Authorization"]) {
            return decorated(.error(.unauthorized), for: request)
        }
        return decorated(negotiated(router.handle(request), for: request), for: request)
    }

    /// `reply` `delay` seconds late: a deferred reply's work (a write's commit) starts then, as if the request
    /// had arrived then; a complete one is sent then. A stream is not delayed: it waits for events anyway.
    // NB: one timer per request in flight, and a connection has one request in flight: bounded by the
    // listener's connection limit.
    private func delayed(_ reply: Reply) -> Reply {
        let delay = delay
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

    private func decorated(_ reply: Reply, for request: Request) -> Reply {
        guard let cors else { return reply }
        let origin = request.headers["Origin"]
        switch reply {
        case .response(var response):
            cors.decorate(&response.headers, origin: origin)
            return .response(response)
        case .later(let start):
            return .later { respond in
                start { response in
                    var response = response
                    cors.decorate(&response.headers, origin: origin)
                    respond(response)
                }
            }
        case .stream(let status, var headers, let start):
            cors.decorate(&headers, origin: origin)
            return .stream(status: status, headers: headers, start: start)
        }
    }
}
