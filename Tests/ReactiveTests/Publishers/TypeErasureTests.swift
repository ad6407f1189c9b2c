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
