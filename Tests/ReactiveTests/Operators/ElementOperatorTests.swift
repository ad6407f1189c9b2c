import Reactive
import Testing

@Suite struct MapTests {
    @Test func transformsEveryValueAndPassesCompletion() {
        let tracker = [1, 2, 3].publisher.map { $0 * 10 }.track()
        #expect(tracker.events == [.subscription, .value(10), .value(20), .value(30), .finished])
    }

    @Test func keyPathForm() {
        struct Output { let data: String }
        #expect(Just(Output(data: "bytes")).map(\.data).track().values == ["bytes"])
    }

    @Test func honoursDemandOfOne() {
        let tracker = [1, 2, 3].publisher.map { $0 + 1 }.track(initialDemand: .max(1))
        #expect(tracker.events == [.subscription, .value(2)])
        tracker.request(.max(1))
        #expect(tracker.values == [2, 3])
    }

    @Test func failurePassesThrough() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.map { $0 }.track()
        subject.send(completion: .failure(TestError(code: 2)))
        #expect(tracker.events == [.subscription, .failure("TestError(2)")])
    }
}

@Suite struct TryMapTests {
    @Test func aThrownErrorFailsTheStreamAndCancelsUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        var cancelled = false
        let tracker = subject.handleEvents(receiveCancel: { cancelled = true })
            .tryMap { value -> Int in
                guard value < 3 else { throw TestError(code: value) }
                return value
            }
            .track()
        subject.send(1)
        subject.send(3)
        subject.send(2)
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(3)")])
        #expect(cancelled)
    }
}

@Suite struct CompactMapTests {
    @Test(arguments: [
        (["1", "x", "3"], [1, 3]),
        (["a", "b"], []),
    ])
    func keepsOnlyNonNilResults(input: [String], expected: [Int]) {
        #expect(input.publisher.compactMap(Int.init).track().values == expected)
    }

    @Test func droppedValuesDoNotUseUpDemand() {
        let tracker = ["x", "1", "y", "2", "3"].publisher.compactMap(Int.init).track(initialDemand: .max(2))
        #expect(tracker.events == [.subscription, .value(1), .value(2)])
    }

    @Test func tryCompactMapFails() {
        let tracker = [1, 2].publisher.tryCompactMap { value -> Int? in
            if value == 2 { throw TestError() }
            return value
        }.track()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }
}

@Suite struct FilterTests {
    @Test func dropsTitlesOfThreeCharacters() {
        let tracker = ["Tea", "Walk the dog", "Gym", "Read"].publisher.filter { $0.count > 3 }.track()
        #expect(tracker.values == ["Walk the dog", "Read"])
    }

    @Test func honoursDemandWhileDropping() {
        let tracker = (1...10).publisher.filter { $0.isMultiple(of: 3) }.track(initialDemand: .max(2))
        #expect(tracker.events == [.subscription, .value(3), .value(6)])
    }

    @Test func tryFilterFails() {
        let tracker = [1, 2].publisher.tryFilter {
            if $0 == 2 { throw TestError() }; return true
        }.track()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }
}

@Suite struct RemoveDuplicatesTests {
    @Test func dropsConsecutiveRepeatsOnly() {
        #expect([1, 1, 2, 2, 1, 3, 3].publisher.removeDuplicates().track().values == [1, 2, 1, 3])
    }

    @Test func customPredicate() {
        #expect(
            ["a", "A", "b"].publisher.removeDuplicates { $0.lowercased() == $1.lowercased() }.track().values == [
                "a", "b",
            ])
    }

    @Test func tryRemoveDuplicatesFails() {
        let tracker = [1, 1, 2].publisher.tryRemoveDuplicates { _, _ in throw TestError() }.track()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }
}

@Suite struct ScanTests {
    @Test func runningTotals() {
        #expect([1, 2, 3].publisher.scan(0, +).track().values == [1, 3, 6])
    }

    @Test func tryScanFails() {
        let tracker = [1, -1, 2].publisher.tryScan(0) { total, next in
            guard next >= 0 else { throw TestError() }
            return total + next
        }.track()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }
}

@Suite struct DropTests {
    @Test func dropFirst() {
        #expect([1, 2, 3].publisher.dropFirst().track().values == [2, 3])
        #expect([1, 2, 3].publisher.dropFirst(5).track().events == [.subscription, .finished])
    }

    @Test func dropWhile() {
        #expect([1, 2, 5, 1].publisher.drop { $0 < 3 }.track().values == [5, 1])
    }

    @Test func tryDropWhileFails() {
        let tracker = [1, 2].publisher.tryDrop { _ in throw TestError() }.track()
        #expect(tracker.events == [.subscription, .failure("TestError(1)")])
    }
}

@Suite struct PrefixTests {
    @Test func prefixCountFinishesEarlyAndCancelsUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        var cancelled = false
        let tracker = subject.handleEvents(receiveCancel: { cancelled = true }).prefix(2).track()
        subject.send(1)
        subject.send(2)
        subject.send(3)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
        #expect(cancelled)
    }

    @Test func prefixWhile() {
        #expect(
            [1, 2, 5, 1].publisher.prefix { $0 < 3 }.track().events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func tryPrefixWhileFails() {
        let tracker = [1].publisher.tryPrefix { _ in throw TestError() }.track()
        #expect(tracker.events == [.subscription, .failure("TestError(1)")])
    }
}

@Suite struct OutputTests {
    @Test(arguments: [(0, ["a"]), (2, ["c"]), (5, [])])
    func outputAt(index: Int, expected: [String]) {
        let tracker = ["a", "b", "c"].publisher.output(at: index).track()
        #expect(tracker.values == expected)
        #expect(tracker.events.last == .finished)
    }

    @Test func outputInRange() {
        #expect((0..<10).publisher.output(in: 2...4).track().values == [2, 3, 4])
    }
}

@Suite struct FirstAndLastTests {
    @Test func firstFinishesAfterOneValue() {
        #expect([3, 4].publisher.first().track().events == [.subscription, .value(3), .finished])
        #expect(Empty<Int, Never>().first().track().events == [.subscription, .finished])
    }

    @Test func firstWhere() {
        #expect([1, 4, 6].publisher.first { $0 > 3 }.track().values == [4])
    }

    @Test func tryFirstWhereFails() {
        #expect(
            [1].publisher.tryFirst { _ in throw TestError() }.track().events == [
                .subscription, .failure("TestError(1)"),
            ])
    }

    @Test func lastWaitsForFinishAndForDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.last().track(initialDemand: .none)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        #expect(tracker.events == [.subscription])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(2), .finished])
    }

    @Test func lastWhereAndTryLastWhere() {
        #expect([1, 4, 2].publisher.last { $0 > 1 }.track().values == [2])
        #expect(
            [1].publisher.tryLast { _ in throw TestError() }.track().events == [
                .subscription, .failure("TestError(1)"),
            ])
    }
}

@Suite struct ReplaceTests {
    @Test func replaceNil() {
        #expect([1, nil, 3].publisher.replaceNil(with: 0).track().values == [1, 0, 3])
    }

    @Test func replaceEmptyOnlyWhenNothingCame() {
        #expect(Empty<Int, Never>().replaceEmpty(with: 7).track().events == [.subscription, .value(7), .finished])
        #expect([1].publisher.replaceEmpty(with: 7).track().values == [1])
    }

    @Test func replaceErrorSendsTheElementThenFinishes() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.replaceError(with: -1).track()
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .value(1), .value(-1), .finished])
    }

    @Test func replaceErrorWaitsForDemand() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.replaceError(with: -1).track(initialDemand: .max(1))
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .value(1)])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(1), .value(-1), .finished])
    }
}

@Suite struct MapErrorAndSetFailureTypeTests {
    @Test func mapErrorConvertsTheFailure() {
        let tracker = Fail<Int, TestError>(error: TestError(code: 4)).mapError { TestError(code: $0.code * 10) }.track()
        #expect(tracker.events == [.subscription, .failure("TestError(40)")])
    }

    @Test func setFailureTypeOnlyChangesTheType() {
        let tracker: TrackingSubscriber<Int, TestError> = Just(1).setFailureType(to: TestError.self).track()
        #expect(tracker.events == [.subscription, .value(1), .finished])
    }
}
