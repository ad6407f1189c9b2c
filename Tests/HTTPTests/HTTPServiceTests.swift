import Synchronization
import TestSupport
import Testing

@testable import HTTP

/// The pipeline above the router: the Host check, token, CORS preflight and headers.
@Suite struct HTTPServiceTests {
    private func service(token: String? = nil, cors: CORSPolicy? = nil, hosts: HostPolicy? = nil) -> HTTPService {
        var router = Router()
        router.get("/todos") { _ in .response(Response(status: 200)) }
        router.post("/todos") { _ in .response(Response(status: 201, headers: ["Location": "/todos/2"])) }
        return HTTPService(router: router, token: token, cors: cors, hosts: hosts)
    }

    @Test func delayHoldsEveryAnswerAndStartsDeferredWorkOnlyThen() throws {
        let started = Mutex<ContinuousClock.Instant?>(nil)
        var router = Router()
        router.get("/todos") { _ in .response(Response(status: 200)) }
        router.post("/todos") { _ in
            .later { respond in
                started.withLock { $0 = .now }
                respond(Response(status: 201))
            }
        }
        router.get("/events") { _ in .stream(headers: [:]) { _ in } }
        let service = HTTPService(router: router, delay: 0.3)
        let clock = ContinuousClock()

        let sent = clock.now
        #expect(try service.respond(to: Request(.get, "/todos")).immediate().status == 200)
        #expect(clock.now - sent >= .milliseconds(300))

        let posted = clock.now
        let reply = service.respond(to: Request(.post, "/todos"))
        #expect(started.withLock { $0 } == nil, "a write's work waits for the delay too")
        #expect(try reply.immediate().status == 201)
        let start = try #require(started.withLock { $0 })
        #expect(start - posted >= .milliseconds(300))

        guard case .stream = service.respond(to: Request(.get, "/events")) else {
            Issue.record("an event stream is answered at once, not delayed")
            return
        }
        #expect(try HTTPService(router: router).respond(to: Request(.get, "/todos")).immediate().status == 200)
        let spared = HTTPService(router: router, delay: 5, undelayedPaths: ["/todos"])
        guard case .response = spared.respond(to: Request(.get, "/todos")) else {
            Issue.record("a spared path is answered at once")
            return
        }
    }

    @Test func noGzipSendsIdentityToAClientThatAcceptsGzip() throws {
        var router = Router()
        let text = String(repeating: "a long, compressible answer ", count: 200)
        router.get("/big") { _ in .response(.json(encoded: Array("\"\(text)\"".utf8))) }
        let request = Request(.get, "/big", headers: ["Accept-Encoding": "gzip"])
        let zipped = try HTTPService(router: router).respond(to: request).immediate()
        #expect(zipped.headers["Content-Encoding"] == "gzip")
        let plain = try HTTPService(router: router, gzip: false).respond(to: request).immediate()
        #expect(plain.headers["Content-Encoding"] == nil && plain.body.count > text.utf8.count)
    }

    @Test(arguments: [HTTPMethod.get, .post, .options])
    func foreignHostIsRefusedBeforeAnyHandler(method: HTTPMethod) throws {
        let service = service(cors: .loopback, hosts: HostPolicy())
        let request = Request(
            method, "/todos",
            headers: [
                "Host": "rebound.example:8080", "Origin": "http://localhost:5173",
                "Access-Control-Request-Method": "POST",
            ])
        let response = try service.respond(to: request).immediate()
        #expect(response.status == 403)
        #expect(try ErrorBody(response).error == "host_not_allowed")
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
    }

    /// A Host with userinfo or a path is a 400 whatever the policy, none (every name accepted) included.
    @Test(arguments: [HostPolicy?.none, HostPolicy()])
    func malformedHostIsRefusedWithoutAPolicyToo(hosts: HostPolicy?) throws {
        let request = Request(.get, "/todos", headers: ["Host": "127.0.0.1:80@evil.example"])
        let response = try service(hosts: hosts).respond(to: request).immediate()
        #expect(response.status == 400 && response.headers["Connection"] == "close")
    }

    @Test(arguments: ["localhost:8080", "127.0.0.1", "[::1]:9000", "dev.example:8080"])
    func loopbackAndAllowedHostsPass(host: String) throws {
        let service = service(hosts: HostPolicy(allowedNames: ["Dev.Example"]))
        #expect(try service.respond(to: Request(.post, "/todos", headers: ["Host": host])).immediate().status == 201)
    }

    @Test(arguments: ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8000", "http://localhost"])
    func loopbackOriginsOnAnyPortGetCORS(origin: String) throws {
        let response = try service(cors: .loopback).respond(to: Request(.get, "/todos", headers: ["Origin": origin]))
            .immediate()
        #expect(response.headers["Access-Control-Allow-Origin"] == origin)
        #expect(response.headers["Vary"] == "Origin")
    }

    @Test(arguments: [
        "http://evil.test", "https://localhost:5173", "http://localhost.evil.test", "http://127.0.0.1.evil.test:80",
        "http://localhost:5173/", "http://localhost:abc", "null",
    ])
    func otherOriginsGetNoCORSByDefault(origin: String) throws {
        let response = try service(cors: .loopback).respond(to: Request(.get, "/todos", headers: ["Origin": origin]))
            .immediate()
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
    }

    @Test func tokenGuardsMutationsOnly() throws {
        let service = service(token: "s3cret")
        #expect(try service.respond(to: Request(.get, "/todos")).immediate().status == 200)
        let refused = try service.respond(to: Request(.post, "/todos")).immediate()
        #expect(refused.status == 401)
        #expect(try ErrorBody(refused).error == "unauthorized")
        let wrong = Request(.post, "/todos", headers: ["Authorization": "Bearer s3creT"])
        #expect(try service.respond(to: wrong).immediate().status == 401)
        let right = Request(.post, "/todos", headers: ["Authorization": "Bearer s3cret"])
        #expect(try service.respond(to: right).immediate().status == 201)
    }

    @Test func corsIsOffByDefault() throws {
        let response = try service().respond(to: Request(.get, "/todos", headers: ["Origin": "http://evil.test"]))
            .immediate()
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
    }

    @Test func corsAllowsListedOriginsAndExposesHeaders() throws {
        let service = service(cors: CORSPolicy(parsing: "http://a.test, http://b.test"))
        let response = try service.respond(to: Request(.post, "/todos", headers: ["Origin": "http://b.test"]))
            .immediate()
        #expect(response.headers["Access-Control-Allow-Origin"] == "http://b.test")
        #expect(
            response.headers["Access-Control-Expose-Headers"]
                == "X-Total-Count, Link, Location, ETag, Idempotency-Key, Retry-After")
        let other = try service.respond(to: Request(.get, "/todos", headers: ["Origin": "http://c.test"]))
            .immediate()
        #expect(other.headers["Access-Control-Allow-Origin"] == nil)
    }

    @Test func preflightIs204WithMethodsAndHeaders() throws {
        let service = service(token: "t", cors: CORSPolicy(parsing: "*"))
        let request = Request(
            .options, "/todos",
            headers: [
                "Origin": "http://a.test", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, authorization",
            ])
        let response = try service.respond(to: request).immediate()
        #expect(response.status == 204)
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["Access-Control-Allow-Methods"] == "GET, HEAD, POST")
        #expect(response.headers["Access-Control-Allow-Headers"] == "content-type, authorization")
    }

    @Test(arguments: ["", "ftp://x", "http://a.test/"])
    func malformedCorsListsAreRejected(text: String) {
        #expect(CORSPolicy(parsing: text) == nil)
    }
}
