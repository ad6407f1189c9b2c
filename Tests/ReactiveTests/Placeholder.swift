import Testing

@Test func placeholder_ReactiveTests() { #expect(Bool(true)) }
