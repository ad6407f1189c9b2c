/// The API as an OpenAPI 3.1 document (docs/api.md in prose), served at `GET /openapi.json`: the file
/// `Sources/Server/Resources/openapi.json`, compiled into the binary by SwiftPM (`.embedInCode`).
///
/// NB: kept true by tests: `OpenAPIDocumentTests` compares its paths and methods with `buildRouter`'s
/// table, and the schemathesis stage (scripts/test.d/50-openapi-schemathesis) checks every response
/// of the live server against it. Change it together with the routes.
enum OpenAPIDocument {
    /// The document's bytes, as the file holds them.
    static var bytes: [UInt8] { PackageResources.openapi_json }

    /// The document as JSON text.
    static var json: String { String(decoding: bytes, as: UTF8.self) }
}
