import Testing

@Test func placeholder_DomainTests() { #expect(Bool(true)) }
