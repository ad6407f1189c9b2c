import Foundation
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// The whole router of a fresh `App` on `:memory:` todos, driven in-process with `Request` values.
struct RouteHarness {
    let app: App
    /// The seed apps the app serves.
    let seeds: SeedSite
    let router: Router

    init(dataPath: String = ":memory:", maxTodos: Int = Configuration().maxTodos) throws {
        var configuration = Configuration()
        configuration.maxTodos = maxTodos
        configuration.port = 0
        configuration.dataPath = dataPath
        configuration.publicPath = nil
        app = try App(configuration: configuration)
        seeds = try #require(app.site as? SeedSite)
        router = buildRouter(app)
    }

    /// Routes one request and returns its immediate response.
    func send(_ method: HTTPMethod, _ target: String, json: String? = nil, headers: HTTPHeaders = [:]) throws
        -> Response
    {
        try router.send(method, target, json: json, headers: headers)
    }

    /// Routes one request and decodes its JSON body as `T`.
    func decode<T: Decodable>(_ type: T.Type, _ target: String, method: HTTPMethod = .get, json: String? = nil)
        throws -> T
    {
        try JSONDecoder().decode(T.self, from: Data(send(method, target, json: json).body))
    }
}

extension Response {
    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body decoded as JSON.
    func decoded<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(body))
    }
}
