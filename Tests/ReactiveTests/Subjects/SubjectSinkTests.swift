import Reactive
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
}
