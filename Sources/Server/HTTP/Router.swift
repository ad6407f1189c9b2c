/// The one table of routes: (method, pattern) → handler, with 404 and 405 + `Allow` derived from it.
///
/// ```swift
/// var router = Router()
/// router.get("/todos/:id") { request in
///     let id = try request.require("id", as: Int.self)
///     return try .json(todo(id))
/// }
/// router.handle(Request(.get, "/todos/1"))
/// ```
struct Router: Sendable {
    /// Answers one request; a thrown `HTTPError` becomes its body, a `DecodingError` a 400, anything else a 500.
    typealias Handler = @Sendable (Request) throws -> Reply

    /// One row of the table.
    struct Route: Sendable {
        /// The method the route answers.
        var method: HTTPMethod
        /// The path pattern.
        var pattern: RoutePattern
        /// The handler.
        var handler: Handler
    }

    /// Every route, in the order added.
    private(set) var routes: [Route] = []
    /// Answers GET and HEAD for paths no route matches (the static files); nil means 404.
    var fallback: Handler?

    init() {}

    /// Adds a route; adding the same method and pattern twice is a programming error.
    mutating func on(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        let pattern = RoutePattern(pattern)
        precondition(
            !routes.contains { $0.method == method && $0.pattern == pattern },
            "duplicate route \(method.rawValue) \(pattern)")
        routes.append(Route(method: method, pattern: pattern, handler: handler))
    }

    /// Adds a GET route (which also answers HEAD).
    mutating func get(_ pattern: String, _ handler: @escaping Handler) { on(.get, pattern, handler) }
    /// Adds a POST route.
    mutating func post(_ pattern: String, _ handler: @escaping Handler) { on(.post, pattern, handler) }
    /// Adds a PUT route.
    mutating func put(_ pattern: String, _ handler: @escaping Handler) { on(.put, pattern, handler) }
    /// Adds a PATCH route.
    mutating func patch(_ pattern: String, _ handler: @escaping Handler) { on(.patch, pattern, handler) }
    /// Adds a DELETE route.
    mutating func delete(_ pattern: String, _ handler: @escaping Handler) { on(.delete, pattern, handler) }

    /// The route for `request` and its captured parameters, or the error the table implies.
    func resolve(_ request: Request) -> Result<(Route, Parameters), HTTPError> {
        let segments = Self.segments(of: request.rawPath)
        var matching: [(route: Route, captures: [String: String])] = []
        for route in routes {
            if let captures = route.pattern.match(segments) { matching.append((route, captures)) }
        }
        let method = request.method
        let candidates = matching.filter { $0.route.method == method || (method == .head && $0.route.method == .get) }
        if let best = candidates.min(by: { lhs, rhs in
            // HEAD prefers an explicit HEAD route over the GET one of the same pattern.
            if lhs.route.pattern == rhs.route.pattern { return lhs.route.method == method }
            return lhs.route.pattern.isMoreSpecific(than: rhs.route.pattern)
        }) {
            return .success((best.route, Parameters(best.captures)))
        }
        if matching.isEmpty { return .failure(.notFound("no route for \(request.path)")) }
        return .failure(.methodNotAllowed(method, allowed: Self.allowed(matching.map(\.route.method))))
    }

    /// The methods some route accepts for `path` (with HEAD when GET is there), empty for an unknown path.
    func allowedMethods(for rawPath: String) -> [HTTPMethod] {
        let segments = Self.segments(of: rawPath)
        return Self.allowed(routes.filter { $0.pattern.match(segments) != nil }.map(\.method))
    }

    /// Routes `request` and runs its handler; never throws: errors become their responses.
    func handle(_ request: Request) -> Reply {
        switch resolve(request) {
        case .success((let route, let parameters)):
            var request = request
            request.parameters = parameters
            return Self.run(route.handler, request)
        case .failure(let error):
            if error.status == 404, request.method == .get || request.method == .head, let fallback {
                return Self.run(fallback, request)
            }
            if error.status == 405, request.method == .options {
                // A plain OPTIONS (no CORS) learns what the path accepts.
                return .response(Response(status: 204, headers: ["Allow": error.headers["Allow"] ?? ""]))
            }
            return .error(error)
        }
    }

    /// Runs a handler, turning what it throws into the contract's error responses.
    static func run(_ handler: Handler, _ request: Request) -> Reply {
        do {
            return try handler(request)
        } catch {
            return .response(Response(rendering: error, for: request))
        }
    }

    /// Percent-decoded path segments (empty ones dropped, so `/todos/` is `/todos`).
    static func segments(of rawPath: String) -> [String] {
        rawPath.split(separator: "/").map { PercentDecoding.decode($0) }
    }

    private static func allowed(_ methods: [HTTPMethod]) -> [HTTPMethod] {
        var set = Set(methods)
        if set.contains(.get) { set.insert(.head) }
        return HTTPMethod.allCases.filter { set.contains($0) }
    }
}
