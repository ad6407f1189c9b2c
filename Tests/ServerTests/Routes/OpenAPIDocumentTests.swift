import Foundation
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// `GET /openapi.json` describes exactly the routes `buildRouter` declares.
@Suite struct OpenAPIDocumentTests {
    /// The document's operations as `"METHOD /path/{param}"`.
    private func documentedOperations() throws -> Set<String> {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations: Set<String> = []
        for (path, item) in paths {
            for method in item.keys where Self.methods.contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    private static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The router's table as `"METHOD /path/{param}"` (`:id` written `{id}`, `*rest` `{rest}`).
    private func routedOperations() throws -> Set<String> {
        var configuration = Configuration()
        configuration.port = 0
        configuration.dataPath = ":memory:"
        configuration.publicPath = nil
        let router = buildRouter(try App(configuration: configuration))
        return Set(
            router.routes.map { route in
                let path = route.pattern.segments.map { segment in
                    switch segment {
                    case .literal(let text): text
                    case .parameter(let name), .rest(let name): "{\(name)}"
                    }
                }
                return "\(route.method.rawValue) /\(path.joined(separator: "/"))"
            })
    }

    @Test func isValidOpenAPI31() throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
    }

    @Test func documentsEveryRoute() throws {
        let undocumented = try routedOperations().subtracting(documentedOperations())
        #expect(undocumented.isEmpty, "routes missing from OpenAPIDocument: \(undocumented.sorted())")
    }

    /// A documented HEAD needs only the GET route: the router answers HEAD wherever it answers GET
    /// (`Router.allowedMethods`), so its table lists no HEAD of its own.
    @Test func documentsNoRouteThatDoesNotExist() throws {
        let routed = try routedOperations()
        let phantom = try documentedOperations().filter { operation in
            !routed.contains(operation)
                && !(operation.hasPrefix("HEAD ") && routed.contains("GET " + operation.dropFirst("HEAD ".count)))
        }
        #expect(phantom.isEmpty, "OpenAPIDocument names operations the router lacks: \(phantom.sorted())")
    }

    @Test func servesTheDocumentAsJSON() throws {
        var router = Router()
        var configuration = Configuration()
        configuration.port = 0
        configuration.dataPath = ":memory:"
        router.addOpenAPIRoutes(try App(configuration: configuration))
        let response = try router.handle(Request(.get, "/openapi.json")).immediate()
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.body == Array(OpenAPIDocument.json.utf8))
    }
}
