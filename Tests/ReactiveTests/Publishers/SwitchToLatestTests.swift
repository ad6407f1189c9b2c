import Reactive
import Testing

@Suite struct SwitchToLatestTests {
    @Test func followsOnlyTheLatestInner() {
        let outer = PassthroughSubject<PassthroughSubject<String, Never>, Never>()
        let first = PassthroughSubject<String, Never>()
        let second = PassthroughSubject<String, Never>()
        let tracker = outer.switchToLatest().track()
        outer.send(first)
        first.send("a")
        outer.send(second)
        first.send("stale")
        second.send("b")
        #expect(tracker.values == ["a", "b"])
    }

    @Test func cancelsThePreviousInner() {
        let outer = PassthroughSubject<AnyPublisher<Int, Never>, Never>()
        var cancels = 0
        let tracker = outer.switchToLatest().track()
        let inner = {
            PassthroughSubject<Int, Never>().handleEvents(receiveCancel: { cancels += 1 }).eraseToAnyPublisher()
        }
        outer.send(inner())
        outer.send(inner())
        #expect(cancels == 1)
        tracker.cancel()
        #expect(cancels == 2)
    }

    @Test func finishesAfterOuterAndCurrentInnerFinish() {
        let outer = PassthroughSubject<Just<Int>, Never>()
        let tracker = outer.switchToLatest().track()
        outer.send(Just(1))
        outer.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(1), .finished])
    }

    @Test func neverFailingOuterWithFailingInners() {
        let urls = PassthroughSubject<Int, Never>()
        let tracker = urls.map { value -> AnyPublisher<Int, TestError> in
            Fail(error: TestError(code: value)).eraseToAnyPublisher()
        }.switchToLatest().track()
        urls.send(9)
        #expect(tracker.events == [.subscription, .failure("TestError(9)")])
    }
}
