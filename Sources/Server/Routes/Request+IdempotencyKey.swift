import HTTP

extension Request {
    /// The client's `Idempotency-Key` (1 to 128 visible ASCII characters), if any: a write sent again with the
    /// key of one that committed is answered with what that one did and not applied again — how a client
    /// settles a 504 `storage_outcome_unknown` (docs/architecture-instances.md, "Faults").
    func idempotencyKey() throws(HTTPError) -> String? {
        guard let key = headers["Idempotency-Key"] else { return nil }
        guard (1...128).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .badRequest("Idempotency-Key must be 1 to 128 visible ASCII characters", code: "invalid_header")
        }
        return key
    }
}
