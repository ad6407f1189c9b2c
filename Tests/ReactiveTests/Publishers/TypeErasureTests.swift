import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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

/// How the type-erasing wrappers describe themselves, as Combine's.
@Suite struct TypeErasureDescriptionTests {
    @Test func anySubscriberDescribesWhatItWraps() {
        let closures = AnySubscriber<Int, Never>()
        #expect(closures.description == "Anonymous AnySubscriber")
        #expect(closures.playgroundDescription as? String == "Anonymous AnySubscriber")
        #expect(AnySubscriber(PassthroughSubject<Int, Never>()).description == "Subject")
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let erased = AnySubscriber(sink)
        #expect(erased.description == "Sink")
        #expect("\(erased.customMirror.subjectType)" == "Sink<Int, Never>")
    }

    @Test func anyPublisherIsAnyPublisherInAPlayground() {
        let erased = Just(1).eraseToAnyPublisher()
        #expect(erased.description == "AnyPublisher")
        #expect(erased.playgroundDescription as? String == "AnyPublisher")
    }
}

/// `AnySubscriber(subject)` as Combine's: the subscriber `subscribe(_: Subject)` uses, behind the eraser.
@Suite struct AnySubscriberOfASubjectTests {
    @Test func itHandsTheSubjectOneSubscriptionNamedSubjectAndOneCompletion() {
        let subject = RecordingSubject()
        let erased = AnySubscriber(subject)
        let first = RecordingSubscription()
        let second = RecordingSubscription()
        erased.receive(subscription: first)
        erased.receive(subscription: second)
        #expect(subject.upstreams.map { String(describing: $0) } == ["Subject"])
        #expect(second.calls == [.cancelled])
        subject.upstreams.first?.request(.max(2))
        #expect(first.calls == [.requested(.max(2))])
        #expect(erased.receive(1) == .none)
        erased.receive(completion: .failure(TestError()))
        erased.receive(completion: .finished)
        #expect(erased.receive(2) == .none)
        #expect(subject.events == ["1", "failure(TestError(1))"])
    }

    @Test func itMirrorsTheSubjectSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        let mirror = AnySubscriber(subject).customMirror
        #expect("\(mirror.subjectType)" == "SubjectSubscriber<PassthroughSubject<Int, Never>>")
        #expect(mirror.children.map(\.label) == ["downstreamSubject", "upstreamSubscription", "subject"])
    }
}

/// A subject that records what it is sent (values and completions as text, subscriptions apart).
final class RecordingSubject: Subject, @unchecked Sendable {
    // NB: @unchecked Sendable: tests drive it from one thread.
    typealias Output = Int
    typealias Failure = TestError
    private(set) var upstreams: [any Subscription] = []
    private(set) var events: [String] = []

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {}
    func send(_ value: Int) { events.append("\(value)") }
    func send(completion: Subscribers.Completion<TestError>) {
        switch completion {
        case .finished: events.append("finished")
        case .failure(let error): events.append("failure(\(error))")
        }
    }
    func send(subscription: any Subscription) { upstreams.append(subscription) }
}
