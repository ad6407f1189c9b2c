import Reactive
import Testing

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
