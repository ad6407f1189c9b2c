import Foundation
import Reactive
import Testing

/// `encode(encoder:)` and `decode(type:decoder:)`.
@Suite struct EncodeDecodeTests {
    @Test func encodesThenDecodesEachValue() {
        let tracker = [1, 2].publisher.encode(encoder: JSONEncoder()).decode(type: Int.self, decoder: JSONDecoder())
            .track()
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func aDecodingErrorFailsTheStream() {
        let tracker = Just(Data("no".utf8)).decode(type: Int.self, decoder: JSONDecoder()).track()
        #expect(tracker.values.isEmpty)
        #expect(tracker.events.last.map { if case .failure = $0 { true } else { false } } == true)
    }

    @Test(arguments: [true, false])
    func aCompletionBeforeTheSubscriptionIsPassedOnAsCombinesIs(encoding: Bool) {
        let upstream = ManualPublisher<Int, Never>()
        let tracker =
            encoding
            ? upstream.encode(encoder: JSONEncoder()).map { _ in 0 }.track()
            : upstream.map { Data("\($0)".utf8) }.decode(type: Int.self, decoder: JSONDecoder()).track()
        upstream.send(completion: .finished)
        #expect(tracker.events == [.finished])
    }
}
