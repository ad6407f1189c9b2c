/// The `--token` check on mutating requests.
package struct BearerToken: Sendable {
    private let expected: [UInt8]

    package init(_ token: String) {
        expected = Array(token.utf8)
    }

    /// Whether `authorization` is `Bearer <token>`: the scheme in any case (RFC 9110 11.1), one space, then
    /// the token, compared in time independent of where it differs.
    package func accepts(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let bytes = Array(authorization.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count,
            zip(bytes, scheme).allSatisfy({ ($0 | 0x20) == $1 }), bytes[scheme.count] == 0x20
        else { return false }
        let given = bytes[(scheme.count + 1)...]
        // NB: constant time over the expected length, so timing does not reveal a matching prefix.
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for (offset, byte) in expected.enumerated() {
            let index = given.index(given.startIndex, offsetBy: offset)
            difference |= (index < given.endIndex ? given[index] : 0) ^ byte
        }
        return difference == 0
    }
}
