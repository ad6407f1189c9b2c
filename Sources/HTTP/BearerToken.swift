/// The `--token` check on mutating requests.
package struct BearerToken: Sendable {
    private let expected: [UInt8]

    package init(_ token: String) {
        expected = Array("Bearer \(token)".utf8)
    }

    /// Whether `authorization` is exactly `Bearer <token>`, compared in time independent of where it differs.
    package func accepts(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let given = Array(authorization.utf8)
        // NB: constant time over the expected length, so timing does not reveal a matching prefix.
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices {
            let byte = index < given.count ? given[index] : 0
            difference |= byte ^ expected[index]
        }
        return difference == 0
    }
}
