import Reactive
import Testing

@Suite struct SinkTests {
    final class Owner {}

    /// Attaches a sink (made by `attach`) whose closure holds a fresh owner; returns the token and a check of
    /// whether the owner is still alive.
    private func attachHoldingAnOwner(_ attach: (Owner) -> AnyCancellable) -> (AnyCancellable, () -> Bool) {
        weak var weakOwner: Owner?
        let token = {
            let owner = Owner()
            weakOwner = owner
            return attach(owner)
        }()
        return (token, { weakOwner != nil })
    }

    @Test func completionReleasesTheClosuresWhileTheCancellableIsStillHeld() {
        let subject = PassthroughSubject<Int, Never>()
        let (token, ownerAlive) = attachHoldingAnOwner { owner in subject.map { $0 }.sink { _ in _ = owner } }
        #expect(ownerAlive())
        subject.send(completion: .finished)
        #expect(!ownerAlive())
        token.cancel()
    }

    @Test func cancelReleasesTheClosuresAndTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        let (token, ownerAlive) = attachHoldingAnOwner { owner in subject.map { $0 + 1 }.sink { _ in _ = owner } }
        subject.send(1)
        #expect(ownerAlive())
        token.cancel()
        #expect(!ownerAlive())
    }

    @Test func aSubjectsOwnSinkAlsoReleasesItsClosuresOnCompletion() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let (early, earlyAlive) = attachHoldingAnOwner { owner in subject.sink { _ in _ = owner } }
        subject.send(completion: .finished)
        #expect(!earlyAlive())
        let (late, lateAlive) = attachHoldingAnOwner { owner in subject.sink { _ in _ = owner } }
        #expect(!lateAlive(), "a sink attached after completion keeps nothing either")
        early.cancel()
        late.cancel()
    }

    @Test func cancelBreaksARetainCycleThroughSelf() {
        final class ViewModel {
            let subject = PassthroughSubject<Int, Never>()
            var token: AnyCancellable?
            var last = 0
            init() { token = subject.map { $0 * 2 }.sink { self.last = $0 } }
        }
        weak var weakModel: ViewModel?
        do {
            let model = ViewModel()
            weakModel = model
            model.subject.send(2)
            #expect(model.last == 4)
            model.token?.cancel()
        }
        #expect(weakModel == nil)
    }

    @Test func takesValuesBeforeItsSubscriptionAndIgnoresThemAfterCompletion() {
        var log: [String] = []
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { _ in log.append("finished") }, receiveValue: { log.append("\($0)") })
        _ = sink.receive(1)
        sink.receive(subscription: Subscriptions.empty)
        _ = sink.receive(2)
        sink.receive(completion: .finished)
        _ = sink.receive(3)
        sink.receive(completion: .finished)
        #expect(log == ["1", "2", "finished"])
    }

    @Test func takesACompletionBeforeItsSubscriptionAndThenCancelsOne() {
        var log: [String] = []
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { _ in log.append("finished") }, receiveValue: { log.append("\($0)") })
        sink.receive(completion: .finished)
        let subject = PassthroughSubject<Int, Never>()
        subject.subscribe(sink)
        subject.send(5)
        #expect(log == ["finished"])
    }

    @Test func aCancelBeforeTheSubscriptionIsIgnored() {
        var log: [String] = []
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { _ in log.append("finished") }, receiveValue: { log.append("\($0)") })
        sink.cancel()
        _ = sink.receive(1)
        let upstream = RecordingSubscription()
        sink.receive(subscription: upstream)
        sink.receive(completion: .finished)
        #expect(log == ["1", "finished"])
        #expect(upstream.calls == [.requested(.unlimited)])
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let first = PassthroughSubject<Int, Never>()
        let second = PassthroughSubject<Int, Never>()
        var cancelled: [String] = []
        first.handleEvents(receiveCancel: { cancelled.append("first") }).subscribe(sink)
        second.handleEvents(receiveCancel: { cancelled.append("second") }).subscribe(sink)
        #expect(cancelled == ["second"])
        sink.cancel()
        #expect(cancelled == ["second", "first"])
    }

    @Test func describesItselfAsCombineDoes() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(String(describing: sink) == "Sink")
        #expect(sink.playgroundDescription as? String == "Sink")
        #expect(sink.customMirror.children.isEmpty)
    }
}
