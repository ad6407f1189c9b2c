import Synchronization

/// What a conduit needs from the subject it belongs to.
protocol ConduitParent<Output, Failure>: AnyObject {
    associatedtype Output
    associatedtype Failure: Error
    /// Forgets a cancelled conduit.
    func detach(_ conduit: SubjectConduit<Output, Failure>)
    /// The value a new subscriber receives first (`CurrentValueSubject`), or nil.
    func currentValue() -> Output?
}

/// One subscriber's connection to a subject, as the subject sees it: a value-typed vtable slot,
/// so the subject's list holds one reference per subscriber and no existentials.
// NB: @unchecked Sendable: subclasses keep all mutable state behind a Mutex.
class SubjectConduit<Output, Failure: Error>: @unchecked Sendable {
    /// Delivers a value if the subscriber has demand; drops it otherwise (as Combine's subjects do).
    func offer(_ value: Output) {}
    /// Delivers the completion and lets go of the subscriber.
    func finish(_ completion: Subscribers.Completion<Failure>) {}
}

/// The conduit for a concrete downstream subscriber.
///
/// Delivery is serialized per subscriber without holding a lock while calling out: the first thread to
/// deliver becomes the "deliverer"; values sent meanwhile (from other threads, or re-entrantly from
/// inside the subscriber) are queued and drained by the deliverer in order. A send from inside a sink
/// therefore never deadlocks, and two threads never call one subscriber at the same time.
final class Conduit<Downstream: Subscriber>: SubjectConduit<Downstream.Input, Downstream.Failure>, Subscription,
    @unchecked Sendable
{
    typealias Output = Downstream.Input
    typealias Failure = Downstream.Failure

    private enum Event {
        case value(Output)
        case completion(Subscribers.Completion<Failure>)
    }

    // NB: @unchecked Sendable: it only lives inside this conduit's Mutex.
    private struct State: @unchecked Sendable {
        var downstream: Downstream?
        var parent: (any ConduitParent<Output, Failure>)?
        var demand = Subscribers.Demand.none
        var delivering = false
        var needsCurrentValue: Bool
        var pending: [Event] = []
    }

    private let state: Mutex<State>

    init(parent: any ConduitParent<Output, Failure>, downstream: Downstream, deliversCurrentValue: Bool) {
        state = Mutex(State(downstream: downstream, parent: parent, needsCurrentValue: deliversCurrentValue))
    }

    override func offer(_ value: Output) {
        let target = state.withLock { state -> Downstream? in
            guard let downstream = state.downstream else { return nil }
            if state.delivering {
                state.pending.append(.value(value))
                return nil
            }
            guard state.demand > 0 else { return nil }
            state.demand -= 1
            state.delivering = true
            return downstream
        }
        guard let target else { return }
        drain(target, more: target.receive(value))
    }

    override func finish(_ completion: Subscribers.Completion<Failure>) {
        let target = state.withLock { state -> Downstream? in
            guard let downstream = state.downstream else { return nil }
            state.parent = nil
            if state.delivering {
                state.pending.append(.completion(completion))
                return nil
            }
            state.downstream = nil
            return downstream
        }
        target?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        let start = state.withLock { state -> (Downstream, any ConduitParent<Output, Failure>)? in
            state.demand += demand
            guard state.needsCurrentValue, !state.delivering, state.demand > 0,
                let downstream = state.downstream, let parent = state.parent
            else { return nil }
            state.needsCurrentValue = false
            state.demand -= 1
            state.delivering = true
            return (downstream, parent)
        }
        guard let (downstream, parent) = start else { return }
        // NB: read after claiming delivery, so a racing send is queued behind it (at worst delivered twice,
        // never lost).
        if let value = parent.currentValue() {
            drain(downstream, more: downstream.receive(value))
        } else {
            drain(downstream, more: .max(1))
        }
    }

    func cancel() {
        let parent = state.withLock { state -> (any ConduitParent<Output, Failure>)? in
            state.downstream = nil
            state.pending = []
            defer { state.parent = nil }
            return state.parent
        }
        parent?.detach(self)
    }

    /// Adds the demand returned by the subscriber, then delivers whatever was queued meanwhile.
    private func drain(_ downstream: Downstream, more: Subscribers.Demand) {
        var more = more
        while true {
            let next = state.withLock { state -> Event? in
                if more != .none { state.demand += more }
                guard state.downstream != nil else {
                    state.pending = []
                    state.delivering = false
                    return nil
                }
                while !state.pending.isEmpty {
                    let event = state.pending.removeFirst()
                    switch event {
                    case .value:
                        guard state.demand > 0 else { continue }
                        state.demand -= 1
                        return event
                    case .completion:
                        state.downstream = nil
                        state.pending = []
                        return event
                    }
                }
                state.delivering = false
                return nil
            }
            switch next {
            case nil:
                return
            case .value(let value):
                more = downstream.receive(value)
            case .completion(let completion):
                downstream.receive(completion: completion)
                return
            }
        }
    }
}
