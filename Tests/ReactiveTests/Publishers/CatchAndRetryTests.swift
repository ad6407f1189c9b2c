import Reactive
import Testing

@Suite struct CatchAndRetryTests {
    @Test func catchReplacesTheFailedPublisher() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.catch { _ in Just(0) }.track()
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .value(1), .value(0), .finished])
    }

    @Test func tryCatchCanRethrow() {
        let tracker = Fail<Int, TestError>(error: TestError(code: 1)).tryCatch { error -> Just<Int> in
            throw TestError(code: error.code + 1)
        }.track()
        #expect(tracker.events == [.subscription, .failure("TestError(2)")])
    }

    @Test func retryResubscribesUpToTheLimit() {
        var attempts = 0
        let tracker = Deferred { () -> AnyPublisher<Int, TestError> in
            attempts += 1
            return attempts < 3
                ? Fail(error: TestError(code: attempts)).eraseToAnyPublisher()
                : Just(attempts).setFailureType(to: TestError.self).eraseToAnyPublisher()
        }.retry(5).track()
        #expect(tracker.events == [.subscription, .value(3), .finished])
        attempts = 0
        let exhausted = Deferred { () -> Fail<Int, TestError> in
            attempts += 1
            return Fail(error: TestError(code: attempts))
        }.retry(2).track()
        #expect(exhausted.events == [.subscription, .failure("TestError(3)")])
    }

    @Test func theRemainingDemandCarriesOverToTheRecoveryPublisher() {
        var requests: [String] = []
        let tracker = [1, 2].publisher.setFailureType(to: TestError.self).append(Fail(error: TestError()))
            .catch { _ in [3, 4, 5].publisher.handleEvents(receiveRequest: { requests.append("\($0)") }) }
            .track(initialDemand: .max(4))
        #expect(tracker.values == [1, 2, 3, 4])
        #expect(requests == ["max(2)"])
        tracker.request(.max(5))
        #expect(tracker.events.last == .finished)
    }
}
