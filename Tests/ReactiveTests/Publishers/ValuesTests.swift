import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct ValuesTests {
    @Test func asyncSequenceOfANeverFailingPublisher() async {
        var collected: [Int] = []
        for await value in [1, 2, 3].publisher.values { collected.append(value) }
        #expect(collected == [1, 2, 3])
    }

    @Test func throwingSequenceRethrowsTheFailure() async {
        var collected: [Int] = []
        do {
            let publisher = [1].publisher.setFailureType(to: TestError.self).append(Fail(error: TestError(code: 5)))
            for try await value in publisher.values {
                collected.append(value)
            }
            Issue.record("expected a failure")
        } catch {
            #expect(error as? TestError == TestError(code: 5))
        }
        #expect(collected == [1])
    }
}
