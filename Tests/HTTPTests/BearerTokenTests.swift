import Testing

@testable import HTTP

/// The `--token` check: the scheme in any case, then the exact token.
@Suite struct BearerTokenTests {
    @Test(arguments: ["Bearer s3cret", "bearer s3cret", "BEARER s3cret", "bEaReR s3cret"])
    func schemeIsCaseInsensitive(_ value: String) {
        #expect(BearerToken("s3cret").accepts(value))
    }

    @Test(arguments: [
        "Bearer s3cre", "Bearer s3crets", "Bearers3cret", "Basic s3cret", "bearer", "Bearer  ", "Bearer  s3cret", "",
    ])
    func wrongCredentialsAreRefused(_ value: String) {
        #expect(!BearerToken("s3cret").accepts(value))
    }
}
