import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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

    @Test func concurrentNextCallsOnOneIteratorEachGetAValue() async {
        let subject = PassthroughSubject<Int, Never>()
        let iterator = UncheckedBox(value: subject.values.makeAsyncIterator())
        async let first: Int? = {
            var it = iterator.value!; return await it.next()
        }()
        async let second: Int? = {
            var it = iterator.value!; return await it.next()
        }()
        try? await Task.sleep(for: .milliseconds(100))
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        let results = await [first, second]
        #expect(Set(results.compactMap { $0 }) == [1, 2])
    }

    @Test func aFailureIsThrownOnceAndThenTheSequenceEnds() async throws {
        let subject = PassthroughSubject<Int, TestError>()
        var iterator = subject.values.makeAsyncIterator()
        subject.send(completion: .failure(TestError(code: 6)))
        await #expect(throws: TestError(code: 6)) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func aValueBeforeTheSubscriptionEndsTheWaitingCallsWithNil() async {
        let upstream = ManualPublisher<Int, Never>()
        let iterator = UncheckedBox(value: upstream.values.makeAsyncIterator())
        let answered = Atomic(false)
        async let first: Int? = {
            var it = iterator.value!
            let value = await it.next()
            answered.store(true, ordering: .releasing)
            return value
        }()
        // NB: sent until the call has waited and ended: a value before the call waits reaches nobody, and on a
        // busy machine the call may start after any fixed delay (a single send after 100 ms hung a CI run).
        while !answered.load(ordering: .acquiring) {
            upstream.send(42)
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(await first == nil)
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.max(1))])
    }

    @Test func aValueNobodyAskedForIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, Never>()
            var iterator = upstream.values.makeAsyncIterator()
            upstream.subscribe()
            upstream.send(1)
            _ = await iterator.next()
        }
    }
}
