import HTTP

extension Router {
    /// `GET /openapi.json`: the contract as an OpenAPI 3.1 document (`OpenAPIDocument`), encoded once.
    mutating func addOpenAPIRoutes(_ app: App) {
        let document = Response.json(encoded: OpenAPIDocument.bytes)
        get("/openapi.json") { _ in .response(document) }
    }
}
