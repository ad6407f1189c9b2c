import Reactive
import Testing

@Suite struct TryAllSatisfyAndTryComparisonTests {
    @Test func tryAllSatisfyAnswersOrFailsWithTheThrownError() {
        #expect([2, 4].publisher.tryAllSatisfy { $0 % 2 == 0 }.track().values == [true])
        #expect([2, 3].publisher.tryAllSatisfy { $0 % 2 == 0 }.track().values == [false])
        let failing = [1, 2].publisher.tryAllSatisfy { _ in throw TestError(code: 9) }.track()
        #expect(failing.events == [.subscription, .failure("TestError(9)")])
    }

    @Test func tryMinAndTryMaxUseTheOrderingOrFail() {
        #expect([3, 1, 2].publisher.tryMin { $0 < $1 }.track().values == [1])
        #expect([3, 1, 2].publisher.tryMax { $0 < $1 }.track().values == [3])
        let failing = [3, 1].publisher.tryMax { _, _ in throw TestError(code: 2) }.track()
        #expect(failing.events == [.subscription, .failure("TestError(2)")])
    }
}
