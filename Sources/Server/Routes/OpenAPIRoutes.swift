import HTTP
import StrictJSON

extension Router {
    /// `GET /openapi.json`: the contract as an OpenAPI 3.1 document (`OpenAPIDocument`), encoded once.
    /// With a data file, the document made from its resources at start (`DataFileOpenAPI`).
    mutating func addOpenAPIRoutes(_ app: App) {
        let bytes = app.site.openAPIDocument(app.configuration)
        let document = Response.json(encoded: bytes)
        get("/openapi.json") { _ in .response(document) }
    }
}
