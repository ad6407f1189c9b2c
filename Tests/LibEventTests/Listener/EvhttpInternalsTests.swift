import Testing

@testable import LibEvent

/// The libevent version check: the installed library (the one the whole suite runs on) starts; any other
/// version is refused with one line that names it.
@Suite struct EvhttpInternalsTests {
    @Test func theInstalledLibeventIsATestedOne() throws {
        #expect(EvhttpInternals.versionProblem() == nil)
        try EvhttpInternals.checkVersion()
    }

    @Test(arguments: [(UInt32(0x0201_0d00), "2.1.13-stable"), (0x0202_0100, "2.2.1-alpha"), (0x0201_0b00, "2.1.11")])
    func anUntestedVersionIsRefusedWithOneLine(number: UInt32, name: String) throws {
        let problem = try #require(EvhttpInternals.versionProblem(number, name: name))
        #expect(problem.hasPrefix("libevent \(name) is not a version this build was tested with"))
        #expect(!problem.contains("\n"))
    }
}
