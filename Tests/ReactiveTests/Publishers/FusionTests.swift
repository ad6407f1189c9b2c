import Reactive
import Testing

/// Combine fuses a chain of the same element operator into one operator on the first one's upstream.
@Suite struct FusionTests {
    private let subject = PassthroughSubject<Int, Never>()

    @Test func mapAfterMapIsOneMapOfTheSameUpstream() {
        let fused: Publishers.Map<PassthroughSubject<Int, Never>, String> = subject.map { $0 * 2 }.map { "\($0)" }
        #expect(fused.upstream === subject)
        let tracker = fused.track()
        subject.send(4)
        #expect(tracker.values == ["8"])
    }

    @Test func tryMapAfterMapIsOneTryMap() {
        let fused: Publishers.TryMap<PassthroughSubject<Int, Never>, Int> = subject.map { $0 + 1 }.tryMap {
            guard $0 < 3 else { throw TestError() }
            return $0
        }
        #expect(fused.upstream === subject)
        let tracker = fused.track()
        subject.send(1)
        subject.send(5)
        #expect(tracker.events == [.subscription, .value(2), .failure("TestError(1)")])
    }

    @Test func mapAfterTryMapStaysATryMap() {
        let fused: Publishers.TryMap<PassthroughSubject<Int, Never>, Int> = subject.tryMap { $0 }.map { $0 * 3 }
        let tracker = fused.track()
        subject.send(2)
        #expect(tracker.values == [6])
    }

    @Test func compactMapAfterCompactMapIsOneCompactMap() {
        let strings = PassthroughSubject<String, Never>()
        let fused: Publishers.CompactMap<PassthroughSubject<String, Never>, Int> =
            strings.compactMap { Int($0) }.compactMap { $0 > 0 ? $0 : nil }
        let tracker = fused.track()
        for text in ["1", "x", "-2", "3"] { strings.send(text) }
        #expect(tracker.values == [1, 3])
    }

    @Test func mapAfterCompactMapIsOneCompactMap() {
        let fused: Publishers.CompactMap<PassthroughSubject<Int, Never>, Int> =
            subject.compactMap { $0 > 1 ? $0 : nil }.map { $0 * 10 }
        let tracker = fused.track()
        for value in [1, 2] { subject.send(value) }
        #expect(tracker.values == [20])
    }

    @Test func filterAfterFilterIsOneFilterThatChecksBoth() {
        let fused: Publishers.Filter<PassthroughSubject<Int, Never>> = subject.filter { $0 > 1 }.filter { $0 < 4 }
        let tracker = fused.track()
        for value in 0..<6 { subject.send(value) }
        #expect(tracker.values == [2, 3])
    }

    @Test func tryFilterAfterFilterIsOneTryFilter() {
        let fused: Publishers.TryFilter<PassthroughSubject<Int, Never>> =
            subject.filter { $0 > 1 }.tryFilter { $0 < 4 }
        let tracker = fused.track()
        for value in 0..<6 { subject.send(value) }
        #expect(tracker.values == [2, 3])
    }
}
