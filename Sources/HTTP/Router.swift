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
package struct Router: Sendable {
    /// Answers one request; a thrown `HTTPError` becomes its body, a `DecodingError` a 400, anything else a 500.
    package typealias Handler = @Sendable (Request) throws -> Reply

    /// One row of the table.
    package struct Route: Sendable {
        /// The method the route answers.
        package var method: HTTPMethod
        /// The path pattern.
        package var pattern: RoutePattern
        /// The handler.
        package var handler: Handler
    }

    /// Every route, in the order added.
    private(set) var routes: [Route] = []
    /// Indices into `routes` by the pattern's first literal segment (`""` for `/`), so a request only
    /// looks at the routes that can match it.
    private var routesByFirstSegment: [String: [Int]] = [:]
    /// Indices of the routes whose pattern starts with a parameter or a `*rest`.
    private var routesStartingWithAWildcard: [Int] = []
    /// Indices of the routes whose pattern is all literal, by their path (`/todos`): the common case
    /// answered with one lookup.
    private var routesByLiteralPath: [String: [Int]] = [:]
    /// The first literal segments as added, by their lowercase spelling (the first added of each).
    private var firstSegmentsByLowercase: [String: String] = [:]
    /// Answers GET and HEAD for paths no route matches (the static files); nil means 404.
    package var fallback: Handler?
    /// Whether a path's first segment matches a route's whatever its case (`/POSTS/1` is `/posts/1`), as
    /// json-server's (Express's) routes do; one spelled exactly as a route's is always taken as that one.
    package var ignoresCase = false

    package init() {}

    /// Adds a route; adding the same method and pattern twice is a programming error.
    package mutating func on(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        let pattern = RoutePattern(pattern)
        precondition(
            !routes.contains { $0.method == method && $0.pattern == pattern },
            "duplicate route \(method.rawValue) \(pattern)")
        routes.append(Route(method: method, pattern: pattern, handler: handler))
        let literals = pattern.segments.compactMap { if case .literal(let text) = $0 { text } else { nil } }
        if literals.count == pattern.segments.count {
            routesByLiteralPath["/" + literals.joined(separator: "/"), default: []].append(routes.count - 1)
        }
        if pattern.segments.isEmpty {
            routesByFirstSegment["", default: []].append(routes.count - 1)
        } else if let first = pattern.firstLiteral {
            routesByFirstSegment[first, default: []].append(routes.count - 1)
            if firstSegmentsByLowercase[first.lowercased()] == nil {
                firstSegmentsByLowercase[first.lowercased()] = first
            }
        } else {
            routesStartingWithAWildcard.append(routes.count - 1)
        }
    }

    /// Adds a GET route (which also answers HEAD).
    package mutating func get(_ pattern: String, _ handler: @escaping Handler) { on(.get, pattern, handler) }
    /// Adds a POST route.
    package mutating func post(_ pattern: String, _ handler: @escaping Handler) { on(.post, pattern, handler) }
    /// Adds a PUT route.
    package mutating func put(_ pattern: String, _ handler: @escaping Handler) { on(.put, pattern, handler) }
    /// Adds a PATCH route.
    package mutating func patch(_ pattern: String, _ handler: @escaping Handler) { on(.patch, pattern, handler) }
    /// Adds a DELETE route.
    package mutating func delete(_ pattern: String, _ handler: @escaping Handler) { on(.delete, pattern, handler) }

    /// The route for `request` and its captured parameters, or the error the table implies.
    ///
    /// A path belongs to the most specific pattern that matches it (literal segments beat parameters,
    /// parameters beat `*rest`); the method is then looked up among that pattern's routes only, so
    /// `GET /posts/refresh` is a 405 with `Allow: POST`, not `/posts/:id` with a bad id.
    package func resolve(_ request: Request) -> Result<(Route, Parameters), HTTPError> {
        let method = request.method
        if let route = literalRoute(request.rawPath, method) { return .success((route, Parameters())) }
        let segments = segments(of: request.rawPath)
        guard let pattern = mostSpecificPattern(matching: segments) else {
            return .failure(.notFound("no route for \(request.path)"))
        }
        var best: Route?
        var allowed: UInt8 = 0
        // NB: the hot path of every request: no allocation per candidate, captures only for the winner.
        forEachCandidate(segments) { route in
            guard route.pattern == pattern else { return }
            allowed |= route.method.bit
            if route.method == method {
                best = route  // HEAD prefers an explicit HEAD route over the GET one.
            } else if method == .head, route.method == .get, best == nil {
                best = route
            }
        }
        if let best {
            return .success((best, Parameters(best.pattern.match(segments) ?? [:])))
        }
        return .failure(
            .methodNotAllowed(method, allowed: Self.allowed(HTTPMethod.allCases.filter { allowed & $0.bit != 0 })))
    }

    /// The most specific pattern of the table that matches `segments`, whatever its method.
    private func mostSpecificPattern(matching segments: [String]) -> RoutePattern? {
        var pattern: RoutePattern?
        forEachCandidate(segments) { route in
            guard route.pattern.matches(segments) else { return }
            if let current = pattern, !route.pattern.isMoreSpecific(than: current) { return }
            pattern = route.pattern
        }
        return pattern
    }

    /// Calls `body` with each route that can match `segments` (by first segment, then the wildcards).
    private func forEachCandidate(_ segments: [String], _ body: (Route) -> Void) {
        for index in routesByFirstSegment[segments.first ?? ""] ?? [] { body(routes[index]) }
        for index in routesStartingWithAWildcard { body(routes[index]) }
    }

    /// The all-literal route for a plain path (no escapes, no empty or trailing segments), if one answers
    /// `method`; nil means "ask the full matcher" (which would pick the same route: nothing is more specific).
    private func literalRoute(_ rawPath: String, _ method: HTTPMethod) -> Route? {
        guard let indices = routesByLiteralPath[rawPath] else { return nil }
        var fallback: Route?
        for index in indices {
            let route = routes[index]
            if route.method == method { return route }
            if method == .head, route.method == .get { fallback = route }
        }
        return fallback
    }

    /// The methods some route accepts for `path` (with HEAD when GET is there), empty for an unknown path.
    package func allowedMethods(for rawPath: String) -> [HTTPMethod] {
        let segments = segments(of: rawPath)
        guard let pattern = mostSpecificPattern(matching: segments) else { return [] }
        return Self.allowed(routes.filter { $0.pattern == pattern }.map(\.method))
    }

    /// Routes `request` and runs its handler; never throws: errors become their responses.
    package func handle(_ request: Request) -> Reply {
        switch resolve(request) {
        case .success((let route, let parameters)):
            if parameters.isEmpty { return Self.run(route.handler, request) }
            var request = request
            request.parameters = parameters
            return Self.run(route.handler, request)
        case .failure(let error):
            if error.status == 404 {
                // NB: a path under a resource (`/posts/1/comments`) is an unknown route, never a file: the
                // static files only answer paths whose first segment no route uses.
                let segments = segments(of: request.rawPath)
                if let first = segments.first, routesByFirstSegment[first] != nil {
                    return .error(unknownRoute(request, under: first))
                }
                if request.method == .get || request.method == .head, let fallback {
                    return Self.run(fallback, request)
                }
            }
            if error.status == 405, request.method == .options {
                // A plain OPTIONS (no CORS) learns what the path accepts.
                return .response(Response(status: 204, headers: ["Allow": error.headers["Allow"] ?? ""]))
            }
            return .error(error)
        }
    }

    /// The 404 for a path under `/first` that no route matches, listing the routes that are there.
    private func unknownRoute(_ request: Request, under first: String) -> HTTPError {
        let routes = (routesByFirstSegment[first] ?? []).map { index in
            let route = self.routes[index]
            let path = route.pattern.description.split(separator: "/").map { segment in
                segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
            }
            return "\(route.method.rawValue) /\(path.joined(separator: "/"))"
        }
        return .notFound(
            "no route for \(request.method.rawValue) \(request.path); the routes under /\(first) are "
                + routes.joined(separator: ", "))
    }

    /// Runs a handler, turning what it throws into the contract's error responses.
    package static func run(_ handler: Handler, _ request: Request) -> Reply {
        do {
            return try handler(request)
        } catch {
            return .response(Response(rendering: error, for: request))
        }
    }

    /// Percent-decoded path segments (empty ones dropped, so `/todos/` is `/todos`).
    package static func segments(of rawPath: String) -> [String] {
        rawPath.utf8.split(separator: UInt8(ascii: "/")).map { PercentDecoding.decode(Substring($0)) }
    }

    /// The path's segments, the first spelled as a route's when `ignoresCase` and only its case differs.
    private func segments(of rawPath: String) -> [String] {
        var segments = Self.segments(of: rawPath)
        if ignoresCase, let first = segments.first, routesByFirstSegment[first] == nil,
            let spelled = firstSegmentsByLowercase[first.lowercased()]
        {
            segments[0] = spelled
        }
        return segments
    }

    private static func allowed(_ methods: [HTTPMethod]) -> [HTTPMethod] {
        var set = Set(methods)
        if set.contains(.get) { set.insert(.head) }
        return HTTPMethod.allCases.filter { set.contains($0) }
    }
}

extension HTTPMethod {
    /// One bit per method, for sets of methods that cost no allocation.
    fileprivate var bit: UInt8 {
        switch self {
        case .get: 1
        case .head: 2
        case .post: 4
        case .put: 8
        case .patch: 16
        case .delete: 32
        case .options: 64
        }
    }
}
