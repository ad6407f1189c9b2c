import Dispatch
import Reactive
import Synchronization
import Testing

/// A subject's own `sink`: when it lets go of its closures (and so of what they captured).
@Suite struct SubjectSinkTests {
    /// An object a sink's closures capture, to see when the closures are let go of.
    final class Captured {}

    final class Log { var entries: [String] = [] }

    enum Kind: CaseIterable, Sendable {
        case passthroughValueOnly, passthroughWithCompletion, currentValueValueOnly, currentValueWithCompletion

        var hasCompletionClosure: Bool { self == .passthroughWithCompletion || self == .currentValueWithCompletion }
    }

    /// A sink of `kind` that has received the value 1, a way to finish its subject, and whether what its
    /// closures captured is still alive.
    struct Subscribed {
        let token: AnyCancellable
        let finish: () -> Void
        let capturedIsAlive: () -> Bool
    }

    func subscribe(_ kind: Kind, into log: Log) -> Subscribed {
        let captured = Captured()
        weak let weakCaptured = captured
        let onValue: (Int) -> Void = {
            _ = captured; log.entries.append("value \($0)")
        }
        let onCompletion: (Subscribers.Completion<Never>) -> Void = {
            _ = captured; log.entries.append("\($0)")
        }
        let token: AnyCancellable
        let finish: () -> Void
        switch kind {
        case .passthroughValueOnly, .passthroughWithCompletion:
            let subject = PassthroughSubject<Int, Never>()
            token =
                kind.hasCompletionClosure
                ? subject.sink(receiveCompletion: onCompletion, receiveValue: onValue)
                : subject.sink(receiveValue: onValue)
            subject.send(1)
            finish = { subject.send(completion: .finished) }
        case .currentValueValueOnly, .currentValueWithCompletion:
            let subject = CurrentValueSubject<Int, Never>(1)
            token =
                kind.hasCompletionClosure
                ? subject.sink(receiveCompletion: onCompletion, receiveValue: onValue)
                : subject.sink(receiveValue: onValue)
            finish = { subject.send(completion: .finished) }
        }
        return Subscribed(token: token, finish: finish, capturedIsAlive: { weakCaptured != nil })
    }

    @Test(arguments: Kind.allCases)
    func aFinishedSinkLetsGoOfItsClosuresWhileItsTokenIsStillHeld(kind: Kind) {
        let log = Log()
        let sink = subscribe(kind, into: log)
        #expect(sink.capturedIsAlive())
        sink.finish()
        #expect(!sink.capturedIsAlive())
        #expect(log.entries == (kind.hasCompletionClosure ? ["value 1", "finished"] : ["value 1"]))
        withExtendedLifetime(sink.token) {}
    }

    @Test(arguments: Kind.allCases)
    func aCancelledSinkLetsGoOfItsClosuresAndGetsNothingMore(kind: Kind) {
        let log = Log()
        let sink = subscribe(kind, into: log)
        sink.token.cancel()
        #expect(!sink.capturedIsAlive())
        sink.finish()
        #expect(log.entries == ["value 1"])
    }

    /// A sink on a subject whose delivery is held on another thread: `blocked` runs inside the delivery of 0
    /// until the returned `release` is called; `received` and `captured` show what the sink saw and kept.
    final class HeldDelivery: Sendable {
        let subject = PassthroughSubject<Int, Never>()
        let received = Mutex<[String]>([])
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
    }

    func holdDelivery(_ held: HeldDelivery, captured: Captured) -> AnyCancellable {
        let token = held.subject.sink(
            receiveCompletion: { completion in
                _ = captured
                held.received.withLock { $0.append("\(completion)") }
            },
            receiveValue: { value in
                _ = captured
                held.received.withLock { $0.append("value \(value)") }
                if value == 0 {
                    held.entered.signal()
                    held.proceed.wait()
                }
            })
        DispatchQueue.global().async(group: held.done) { held.subject.send(0) }
        held.entered.wait()
        return token
    }

    @Test func eventsSentWhileAnotherThreadDeliversArriveAfterItInOrder() {
        let held = HeldDelivery()
        let token = holdDelivery(held, captured: Captured())
        held.subject.send(1)
        held.subject.send(2)
        held.subject.send(completion: .finished)
        held.received.withLock { #expect($0 == ["value 0"]) }
        held.proceed.signal()
        held.done.wait()
        held.received.withLock { #expect($0 == ["value 0", "value 1", "value 2", "finished"]) }
        withExtendedLifetime(token) {}
    }

    @Test func aSinkCancelledWhileEventsWaitForItGetsNoneOfThemAndLetsGoOfItsClosures() {
        let held = HeldDelivery()
        var captured: Captured? = Captured()
        weak let weakCaptured = captured
        let token = holdDelivery(held, captured: captured!)
        captured = nil
        held.subject.send(1)
        held.subject.send(2)
        token.cancel()
        // The delivery still running holds the closures until it returns.
        #expect(weakCaptured != nil)
        held.proceed.signal()
        held.done.wait()
        #expect(weakCaptured == nil)
        held.subject.send(3)
        held.received.withLock { #expect($0 == ["value 0"]) }
        // The subject goes on serving new sinks.
        let later = Mutex<[Int]>([])
        let next = held.subject.sink { value in later.withLock { $0.append(value) } }
        held.subject.send(4)
        later.withLock { #expect($0 == [4]) }
        next.cancel()
    }
}
