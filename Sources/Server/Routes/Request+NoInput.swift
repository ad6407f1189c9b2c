import HTTP

extension Request {
    /// For a mutation that takes no input (`POST /posts/refresh`): no body is fine, and so is an empty JSON
    /// object; any other body is a 415 (not JSON) or a 400 (not strict JSON, not an object, or a field).
    func acceptNoInput() throws(HTTPError) {
        if !body.isEmpty { _ = try jsonBody(fields: []) }
    }
}
