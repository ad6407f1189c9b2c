import Reactive
import Testing

@Suite struct MergeTests {
    @Test func interleavesInArrivalOrderAndFinishesWhenAllFinish() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let tracker = a.merge(with: b).track()
        a.send(1)
        b.send(2)
        a.send(3)
        a.send(completion: .finished)
        b.send(4)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .value(3), .value(4)])
        b.send(completion: .finished)
        #expect(tracker.events.last == .finished)
    }

    @Test func mergeManyAndAFailureEndsEverything() {
        let subjects = (0..<3).map { _ in PassthroughSubject<Int, TestError>() }
        let tracker = Publishers.MergeMany(subjects).track()
        subjects[2].send(7)
        subjects[0].send(completion: .failure(TestError()))
        subjects[1].send(8)
        #expect(tracker.events == [.subscription, .value(7), .failure("TestError(1)")])
    }

    @Test func honoursDemand() {
        let tracker = [1, 2].publisher.merge(with: [3, 4].publisher).track(initialDemand: .max(3))
        #expect(tracker.values.count == 3)
    }
}

@Suite struct CombineLatestTests {
    @Test func emitsOnceBothHaveAValueThenOnEveryChange() {
        let name = PassthroughSubject<String, Never>()
        let password = PassthroughSubject<String, Never>()
        var valid: [Bool] = []
        let token = name.combineLatest(password) { !$0.isEmpty && $1.count >= 8 }.sink { valid.append($0) }
        name.send("ann")
        password.send("short")
        password.send("long enough")
        name.send("")
        token.cancel()
        #expect(valid == [false, true, false])
    }

    @Test func threeWay() {
        let tracker = Just(1).combineLatest(Just(2), Just(3)).map { $0 + $1 + $2 }.track()
        #expect(tracker.events == [.subscription, .value(6), .finished])
    }

    @Test func keepsOnlyTheLatestCombinationWithoutDemand() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let tracker = a.combineLatest(b).map { $0 * 10 + $1 }.track(initialDemand: .max(1))
        a.send(1)
        b.send(1)
        a.send(2)
        a.send(3)
        #expect(tracker.values == [11])
        tracker.request(.max(1))
        #expect(tracker.values == [11, 31])
    }

    @Test func finishesEarlyWhenOneSideFinishesEmpty() {
        let a = PassthroughSubject<Int, Never>()
        let tracker = a.combineLatest(Empty<Int, Never>()).map { $0 + $1 }.track()
        #expect(tracker.events == [.subscription, .finished])
    }
}

@Suite struct ZipTests {
    @Test func pairsInOrder() {
        let tracker = [1, 2, 3].publisher.zip(["a", "b"].publisher).map { "\($0)\($1)" }.track()
        #expect(tracker.events == [.subscription, .value("1a"), .value("2b"), .finished])
    }

    @Test func waitsForEachSide() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let tracker = a.zip(b).map { $0 * 10 + $1 }.track()
        a.send(1)
        a.send(2)
        #expect(tracker.values == [])
        b.send(1)
        #expect(tracker.values == [11])
        b.send(2)
        #expect(tracker.values == [11, 22])
    }

    @Test func zip3() {
        #expect(Just(1).zip(Just(2), Just(3)).map { $0 + $1 + $2 }.track().values == [6])
    }
}

@Suite struct FlatMapTests {
    @Test func mergesInnerPublishers() {
        let tracker = [1, 2, 3].publisher.flatMap { Just($0 * 2) }.track()
        #expect(tracker.events == [.subscription, .value(2), .value(4), .value(6), .finished])
    }

    @Test func maxPublishersLimitsConcurrentInners() {
        let inners = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
        // A sequence honours demand, so the second inner is only requested once the first finishes.
        let tracker = inners.publisher.flatMap(maxPublishers: .max(1)) { $0 }.track()
        inners[1].send(10)  // not subscribed yet: the first is still live
        inners[0].send(1)
        inners[0].send(completion: .finished)
        inners[1].send(11)
        #expect(tracker.values == [1, 11])
    }

    @Test func buffersWhenThereIsNoDemand() {
        let outer = PassthroughSubject<Int, Never>()
        let tracker = outer.flatMap { Just($0) }.track(initialDemand: .max(1))
        outer.send(1)
        outer.send(2)
        outer.send(3)
        #expect(tracker.values == [1])
        tracker.request(.max(2))
        #expect(tracker.values == [1, 2, 3])
    }

    @Test func anInnerFailureFailsEverything() {
        let outer = PassthroughSubject<Int, TestError>()
        let tracker = outer.flatMap { value -> AnyPublisher<Int, TestError> in
            value < 0
                ? Fail(error: TestError(code: value)).eraseToAnyPublisher()
                : Just(value).setFailureType(to: TestError.self).eraseToAnyPublisher()
        }.track()
        outer.send(1)
        outer.send(-5)
        outer.send(2)
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(-5)")])
    }

    @Test func finishesWhenOuterAndAllInnersFinish() {
        let outer = PassthroughSubject<Int, Never>()
        let inner = PassthroughSubject<Int, Never>()
        let tracker = outer.flatMap { _ in inner }.track()
        outer.send(0)
        outer.send(completion: .finished)
        #expect(tracker.events == [.subscription])
        inner.send(completion: .finished)
        #expect(tracker.events == [.subscription, .finished])
    }
}

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

@Suite struct ConcatenateTests {
    @Test func prependAndAppend() {
        #expect([3, 4].publisher.prepend(1, 2).append(5).track().values == [1, 2, 3, 4, 5])
    }

    @Test func theSuffixStartsOnlyAfterThePrefixFinishes() {
        let prefix = PassthroughSubject<Int, Never>()
        let tracker = prefix.append([9]).track()
        prefix.send(1)
        #expect(tracker.values == [1])
        prefix.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(1), .value(9), .finished])
    }

    @Test func demandCarriesOver() {
        let tracker = [1, 2].publisher.append(3, 4).track(initialDemand: .max(3))
        #expect(tracker.values == [1, 2, 3])
        tracker.request(.max(1))
        #expect(tracker.events.last == .finished)
    }
}

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
}
