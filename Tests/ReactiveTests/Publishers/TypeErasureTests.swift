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
