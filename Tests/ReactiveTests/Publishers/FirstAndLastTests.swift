import Reactive
import Testing

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

    @Test(arguments: ["first", "first(where:)", "tryFirst(where:)", "last", "count", "contains"])
    func reducingOperatorsRequestEverythingUpstreamWhateverTheDownstreamAsks(name: String) {
        var requests: [String] = []
        let upstream = [1, 2, 3].publisher.handleEvents(receiveRequest: { requests.append("\($0)") })
        let tracker = TrackingSubscriber<String, any Error>(initialDemand: .max(1))
        switch name {
        case "first": upstream.first().map(String.init).setFailureType(to: (any Error).self).subscribe(tracker)
        case "first(where:)":
            upstream.first { $0 > 1 }.map(String.init).setFailureType(to: (any Error).self).subscribe(tracker)
        case "tryFirst(where:)": upstream.tryFirst { $0 > 1 }.map(String.init).subscribe(tracker)
        case "last": upstream.last().map(String.init).setFailureType(to: (any Error).self).subscribe(tracker)
        case "count": upstream.count().map(String.init).setFailureType(to: (any Error).self).subscribe(tracker)
        case "contains":
            upstream.contains(3).map { "\($0)" }.setFailureType(to: (any Error).self).subscribe(tracker)
        default: Issue.record("no case \(name)")
        }
        #expect(requests == ["unlimited"])
    }

    @Test func firstHoldsTheValueUntilTheDownstreamAsks() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.first().track(initialDemand: .none)
        subject.send(7)
        subject.send(8)
        #expect(tracker.events == [.subscription])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(7), .finished])
    }
}
