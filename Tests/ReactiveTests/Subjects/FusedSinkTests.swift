import Dispatch
import Reactive
import Synchronization
import Testing

/// A subject's own `sink` keeps its closures in an object of its own that the subject drops only later (it
/// cannot reach its subject): the hazards of cancelling it while, or from inside, a delivery.
@Suite struct FusedSinkTests {
    final class Captured {}

    /// What a test's closures share across threads.
    final class Shared: Sendable {
        let received = Mutex<[Int]>([])
        let token = Mutex<AnyCancellable?>(nil)
    }

    /// Subscribes a sink made by `sink` whose closure records each value in `shared`, keeps a `Captured` alive
    /// and then runs `then`; the token is kept in `shared`. Returns whether the `Captured` is still alive.
    func subscribe(
        _ shared: Shared, with sink: (@escaping (Int) -> Void) -> AnyCancellable, then: @escaping (Int) -> Void
    ) -> () -> Bool {
        var captured: Captured? = Captured()
        weak let weakCaptured = captured
        shared.token.withLock { [captured] token in
            token = sink { value in
                _ = captured
                shared.received.withLock { $0.append(value) }
                then(value)
            }
        }
        captured = nil
        return { weakCaptured != nil }
    }

    @Test func aSinkCancellingItselfInsideItsDeliveryGetsNothingMoreNotEvenANestedSend() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = Shared()
        var capturedIsAlive: () -> Bool = { false }
        capturedIsAlive = subscribe(shared, with: { subject.sink(receiveValue: $0) }) { value in
            guard value == 1 else { return }
            shared.token.withLock { $0 }?.cancel()
            subject.send(2)
            // The closure runs on: it is let go of only once the delivery returns.
            #expect(capturedIsAlive())
        }
        subject.send(1)
        subject.send(3)
        shared.received.withLock { #expect($0 == [1]) }
        #expect(!capturedIsAlive())
        // The other sinks of the subject are unaffected.
        let other = Mutex<[Int]>([])
        let next = subject.sink { value in other.withLock { $0.append(value) } }
        subject.send(4)
        other.withLock { #expect($0 == [4]) }
        next.cancel()
    }

    @Test func aSinkWhoseTokenIsDroppedInsideItsDeliveryStopsAndLetsGoOfItsClosures() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let shared = Shared()
        let capturedIsAlive = subscribe(shared, with: { subject.sink(receiveValue: $0) }) { value in
            // Dropping the last reference to the token cancels the sink from inside its own delivery.
            if value == 1 { shared.token.withLock { $0 = nil } }
        }
        subject.send(1)
        #expect(!capturedIsAlive())
        subject.send(2)
        shared.received.withLock { #expect($0 == [0, 1]) }
    }

    @Test func aSinkCancelledFromAnotherThreadDuringItsDeliveryGetsNothingQueuedAfterIt() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = Shared()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        var captured: Captured? = Captured()
        weak let weakCaptured = captured
        let token = subject.sink(
            receiveCompletion: { [captured] _ in
                _ = captured
                shared.received.withLock { $0.append(-1) }
            },
            receiveValue: { [captured] value in
                _ = captured
                shared.received.withLock { $0.append(value) }
                if value == 0 {
                    entered.signal()
                    proceed.wait()
                }
            })
        captured = nil
        DispatchQueue.global().async(group: done) { subject.send(0) }
        entered.wait()
        // Queued behind the delivery running on the other thread.
        subject.send(1)
        subject.send(completion: .finished)
        token.cancel()
        #expect(weakCaptured != nil)
        proceed.signal()
        done.wait()
        #expect(weakCaptured == nil)
        shared.received.withLock { #expect($0 == [0]) }
    }

    @Test func aNestedSendFromTheCurrentValueDeliveryIsDeliveredAtOnce() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let log = Mutex<[String]>([])
        let first = subject.sink { value in
            log.withLock { $0.append("a\(value)") }
            if value == 2 { subject.send(3) }
        }
        let second = subject.sink { value in
            log.withLock { $0.append("b\(value)") }
            if value == 1 { subject.send(2) }
        }
        log.withLock { #expect($0 == ["a1", "b1", "a2", "a3", "b3", "b2"]) }
        first.cancel()
        second.cancel()
    }

    @Test func cancelledSinksAreSweptOutAndTheOthersKeepTheirOrderBesideASubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        let log = Mutex<[String]>([])
        var tokens: [AnyCancellable] = []
        let tracker = TrackingSubscriber<Int, Never>()
        for index in 0..<200 {
            if index == 100 { subject.subscribe(tracker) }
            tokens.append(subject.sink { value in log.withLock { $0.append("\(index):\(value)") } })
        }
        // Every sink but each tenth ends: sends and the next sinks sweep them out.
        for (index, token) in tokens.enumerated() where index % 10 != 0 { token.cancel() }
        subject.send(1)
        for index in 200..<300 {
            tokens.append(subject.sink { value in log.withLock { $0.append("\(index):\(value)") } })
            tokens.last!.cancel()
        }
        let last = subject.sink { value in log.withLock { $0.append("last:\(value)") } }
        subject.send(2)
        let expected = { (value: Int) in stride(from: 0, to: 200, by: 10).map { "\($0):\(value)" } }
        log.withLock { #expect($0 == expected(1) + expected(2) + ["last:2"]) }
        #expect(tracker.values == [1, 2])
        last.cancel()
    }

    /// Several threads send to one subject whose sinks are subscribed and cancelled meanwhile: each sink is
    /// called by one thread at a time, sees each sender's values in the order sent, and nothing reaches a sink
    /// from a send made after its cancel returned on the same thread.
    @Test func concurrentSendsAndCancelsKeepEachSinkSerialAndInOrder() {
        final class Probe: Sendable {
            /// Deliveries running right now, and whether two ever overlapped.
            let inside = Atomic<Int>(0)
            let overlapped = Atomic<Bool>(false)
            /// The last value seen from each sender (values are sender * 1_000_000 + sequence; a sender repeats one
            /// around its own sink's cancel, so values never go down).
            let lastSeen = Mutex<[Int: Int]>([:])
            let outOfOrder = Atomic<Bool>(false)
            let cancelled = Atomic<Bool>(false)
            let afterCancel = Atomic<Bool>(false)

            func receive(_ value: Int) {
                if inside.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue > 1 {
                    overlapped.store(true, ordering: .relaxed)
                }
                let sender = value / 1_000_000
                lastSeen.withLock { seen in
                    if let previous = seen[sender], previous > value { outOfOrder.store(true, ordering: .relaxed) }
                    seen[sender] = value
                }
                inside.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            }
        }
        let subject = PassthroughSubject<Int, Never>()
        let senders = 4
        let perSender = 2_000
        let stable = (0..<4).map { _ in Probe() }
        let stableTokens = stable.map { probe in subject.sink { probe.receive($0) } }
        let group = DispatchGroup()
        for sender in 0..<senders {
            DispatchQueue.global().async(group: group) {
                for sequence in 0..<perSender {
                    subject.send(sender * 1_000_000 + sequence)
                    // Each sender also subscribes and cancels a sink of its own: after its cancel returns,
                    // this thread's next send must not reach it.
                    if sequence % 50 == 0 {
                        let probe = Probe()
                        let token = subject.sink { value in
                            if probe.cancelled.load(ordering: .acquiring), value / 1_000_000 == sender {
                                probe.afterCancel.store(true, ordering: .relaxed)
                            }
                            probe.receive(value)
                        }
                        subject.send(sender * 1_000_000 + sequence)
                        token.cancel()
                        probe.cancelled.store(true, ordering: .releasing)
                        subject.send(sender * 1_000_000 + sequence)
                        let overlapped = probe.overlapped.load(ordering: .relaxed)
                        let afterCancel = probe.afterCancel.load(ordering: .relaxed)
                        #expect(!overlapped)
                        #expect(!afterCancel)
                    }
                }
            }
        }
        group.wait()
        for probe in stable {
            let overlapped = probe.overlapped.load(ordering: .relaxed)
            let outOfOrder = probe.outOfOrder.load(ordering: .relaxed)
            #expect(!overlapped)
            #expect(!outOfOrder)
            probe.lastSeen.withLock { seen in
                #expect(seen.count == senders)
                for sender in 0..<senders { #expect(seen[sender] == sender * 1_000_000 + perSender - 1) }
            }
        }
        stableTokens.forEach { $0.cancel() }
    }
}
