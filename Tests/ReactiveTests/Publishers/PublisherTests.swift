import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct JustFailEmptyTests {
    @Test func justWaitsForDemand() {
        let tracker = Just(42).track(initialDemand: .none)
        #expect(tracker.events == [.subscription])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(42), .finished])
    }

    @Test func failAndEmpty() {
        #expect(Fail<Int, TestError>(error: TestError()).track().events == [.subscription, .failure("TestError(1)")])
        #expect(Empty<Int, Never>().track().events == [.subscription, .finished])
        #expect(Empty<Int, Never>(completeImmediately: false).track().events == [.subscription])
    }
}

@Suite struct FutureTests {
    @Test func runsOnceAndReplaysTheResultToEverySubscriber() {
        var runs = 0
        let future = Future<Int, Never> { promise in
            runs += 1
            promise(.success(7))
        }
        #expect(future.track().values == [7])
        #expect(future.track().values == [7])
        #expect(runs == 1)
    }

    @Test func fulfilledLaterFromAnotherThread() {
        let future = Future<Int, TestError> { promise in
            nonisolated(unsafe) let promise = promise
            DispatchQueue.global().async { promise(.failure(TestError(code: 3))) }
        }
        let tracker = future.track()
        #expect(waitUntil { tracker.events.count == 2 })
        #expect(tracker.events == [.subscription, .failure("TestError(3)")])
    }

    @Test func onlyTheFirstResultCounts() {
        let future = Future<Int, Never> { promise in
            promise(.success(1))
            promise(.success(2))
        }
        #expect(future.track().values == [1])
    }
}

@Suite struct DeferredTests {
    @Test func createsThePublisherPerSubscriber() {
        var created = 0
        let deferred = Deferred { () -> Just<Int> in
            created += 1
            return Just(created)
        }
        #expect(created == 0)
        #expect(deferred.track().values == [1])
        #expect(deferred.track().values == [2])
    }
}

@Suite struct SequenceAndRecordTests {
    @Test func sequenceHonoursDemand() {
        let tracker = (1...5).publisher.track(initialDemand: .max(2))
        #expect(tracker.values == [1, 2])
        tracker.request(.unlimited)
        #expect(tracker.events.last == .finished)
        #expect(tracker.values == [1, 2, 3, 4, 5])
    }

    @Test func sequenceStopsWhenCancelledMidStream() {
        var tracker: TrackingSubscriber<Int, Never>?
        tracker = TrackingSubscriber(onValue: { value in if value == 3 { tracker?.cancel() } })
        (1...100).publisher.subscribe(tracker!)
        #expect(tracker?.events == [.subscription, .value(1), .value(2), .value(3)])
    }

    @Test func recordPlaysBack() {
        let record = Record<Int, TestError> { recording in
            recording.receive(1)
            recording.receive(2)
            recording.receive(completion: .failure(TestError()))
        }
        #expect(record.track().events == [.subscription, .value(1), .value(2), .failure("TestError(1)")])
    }
}

@Suite struct TypeErasureTests {
    @Test func anyPublisherForwards() {
        let erased: AnyPublisher<Int, Never> = [1, 2].publisher.map { $0 * 3 }.eraseToAnyPublisher()
        #expect(erased.track().values == [3, 6])
    }

    @Test func anySubscriberFromClosures() {
        var values: [Int] = []
        var finished = false
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { $0.request(.max(2)) },
            receiveValue: {
                values.append($0); return .none
            },
            receiveCompletion: { _ in finished = true }
        )
        [1, 2, 3].publisher.subscribe(subscriber)
        #expect(values == [1, 2])
        #expect(!finished)
    }
}

@Suite struct AnyCancellableTests {
    @Test func cancelsOnceAndOnDeinit() {
        var cancels = 0
        var token: AnyCancellable? = AnyCancellable { cancels += 1 }
        token?.cancel()
        token?.cancel()
        token = nil
        #expect(cancels == 1)
        do { _ = AnyCancellable { cancels += 1 } }
        #expect(cancels == 2)
    }

    @Test func storeInSetAndArray() {
        var set = Set<AnyCancellable>()
        var array: [AnyCancellable] = []
        let subject = PassthroughSubject<Int, Never>()
        subject.sink { _ in }.store(in: &set)
        subject.sink { _ in }.store(in: &array)
        #expect(set.count == 1)
        #expect(array.count == 1)
    }
}

@Suite struct AssignTests {
    final class Label { var text = "" }

    @Test func assignsAndReleasesTheObjectOnCancel() {
        let subject = PassthroughSubject<String, Never>()
        weak var weakLabel: Label?
        var token: AnyCancellable?
        do {
            let label = Label()
            weakLabel = label
            token = subject.assign(to: \.text, on: label)
            subject.send("hello")
            #expect(label.text == "hello")
        }
        #expect(weakLabel != nil)
        token?.cancel()
        #expect(weakLabel == nil)
    }
}

@Suite struct HandleEventsAndPrintTests {
    @Test func seesEveryEvent() {
        var log: [String] = []
        let tracker = [1].publisher.handleEvents(
            receiveSubscription: { _ in log.append("subscription") },
            receiveOutput: { log.append("output \($0)") },
            receiveCompletion: { _ in log.append("completion") },
            receiveCancel: { log.append("cancel") },
            receiveRequest: { log.append("request \($0)") }
        ).track()
        #expect(tracker.values == [1])
        #expect(log == ["subscription", "request unlimited", "output 1", "completion"])
    }

    @Test func printWritesOneLinePerEvent() {
        final class Lines: TextOutputStream, @unchecked Sendable {
            var text = ""
            func write(_ string: String) { text += string }
        }
        let lines = Lines()
        _ = [1].publisher.print("n", to: lines).track()
        #expect(
            lines.text == "n: receive subscription\nn: request unlimited\nn: receive value: (1)\nn: receive finished\n")
    }
}

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

@Suite struct DemandTests {
    @Test func arithmeticSaturates() {
        #expect(Subscribers.Demand.max(1) + .max(2) == .max(3))
        #expect(Subscribers.Demand.unlimited + .max(1) == .unlimited)
        #expect(Subscribers.Demand.max(1) - .max(5) == .none)
        #expect(Subscribers.Demand.unlimited - .max(5) == .unlimited)
        #expect(Subscribers.Demand.max(2) * 3 == .max(6))
        #expect(Subscribers.Demand.max(3) > 2)
        #expect(Subscribers.Demand.unlimited.max == nil)
        #expect(Subscribers.Demand.max(4).description == "max(4)")
    }
}

@Suite struct DataTaskPublisherTests {
    @Test func aClosedPortFailsWithAURLError() throws {
        let url = try #require(URL(string: "http://127.0.0.1:1/nothing"))
        let failure = Locked<URLError?>(nil)
        let token = URLSession.shared.dataTaskPublisher(for: url).sink(
            receiveCompletion: { completion in
                if case .failure(let error) = completion { failure.mutate { $0 = error } }
            },
            receiveValue: { _ in }
        )
        #expect(waitUntil { failure.value != nil })
        token.cancel()
    }

    @Test func cancelBeforeDemandSendsNoRequest() throws {
        let server = try LoopbackServer(files: ["x": Data("1".utf8)])
        let url = try #require(URL(string: server.baseURL + "x"))
        let tracker = TrackingSubscriber<Int, URLError>(initialDemand: .none)
        URLSession.shared.dataTaskPublisher(for: url).map { $0.data.count }.subscribe(tracker)
        tracker.cancel()
        tracker.request(.max(1))
        _ = waitUntil(seconds: 0.3) { tracker.events.count > 1 }
        #expect(tracker.events == [.subscription])
    }
}
