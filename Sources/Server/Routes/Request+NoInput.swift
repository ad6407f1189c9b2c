import HTTP

extension Request {
    /// For a mutation that takes no input (`POST /posts/refresh`): no body is fine, a JSON body is ignored,
    /// any other body is a 415 (the contract's rule for bodies that are not JSON).
    func acceptNoInput() throws(HTTPError) {
        if !body.isEmpty && !hasJSONContentType { throw HTTPError.unsupportedMediaType }
    }
}
