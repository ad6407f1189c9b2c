import Synchronization

extension Publishers {
    /// A publisher that publishes a given sequence of elements.
    public struct Sequence<Elements: Swift.Sequence, Failure: Error>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Elements.Element

        /// The sequence of elements to publish.
        public let sequence: Elements

        /// Creates a publisher for a sequence of elements.
        public init(sequence: Elements) { self.sequence = sequence }

        /// Attaches the subscriber; elements go out as demanded, then `.finished`.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            subscriber.receive(sequence: sequence, then: .finished)
        }
    }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}

extension Sequence {
    /// A publisher that publishes this sequence's elements.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.sink { print($0) }
    /// ```
    public var publisher: Publishers.Sequence<Self, Never> { Publishers.Sequence(sequence: self) }
}

extension Subscriber {
    /// Feeds a sequence to this subscriber as demanded, then the completion; `record` describes the subscription
    /// as `Record`'s is described.
    func receive<Elements: Sequence>(
        sequence: Elements, then completion: Subscribers.Completion<Failure>, record: Bool = false
    ) where Elements.Element == Input {
        var iterator = sequence.makeIterator()
        guard let first = iterator.next() else {
            receive(subscription: Subscriptions.empty)
            receive(completion: completion)
            return
        }
        receive(
            subscription: SequenceSubscription(
                downstream: self, sequence: sequence, first: first, rest: iterator, completion: completion,
                record: record))
    }
}

/// Hands out elements while there is demand; one thread drains at a time, so requests from inside
/// `receive(_:)` only add demand.
// NB: @unchecked Sendable: all state is behind one Mutex.
private final class SequenceSubscription<Downstream: Subscriber, Iterator: IteratorProtocol>: Subscription,
    CombineDescribed, @unchecked Sendable
where Iterator.Element == Downstream.Input {
    private let state: Mutex<SequenceState<Downstream, Iterator>>
    /// The sequence, for the description and the mirror.
    private let sequence: Any
    private let completion: Subscribers.Completion<Downstream.Failure>
    private let record: Bool

    init(
        downstream: Downstream, sequence: Any, first: Iterator.Element, rest: Iterator,
        completion: Subscribers.Completion<Downstream.Failure>, record: Bool
    ) {
        state = Mutex(SequenceState(downstream: downstream, next: first, iterator: rest, completion: completion))
        self.sequence = sequence
        self.completion = completion
        self.record = record
    }

    /// As Combine's: the sequence while it plays, then "Sequence" (`Record`'s: "Cancelled Events") once it has
    /// finished or been cancelled.
    var combineName: String {
        guard state.withLock({ $0.downstream == nil }) else { return String(describing: sequence) }
        return record ? "Cancelled Events" : "Sequence"
    }

    /// As Combine's: the sequence (no elements once it has ended), and for `Record` its completion.
    var customMirror: Mirror {
        let shown = state.withLock { $0.downstream == nil } ? [Iterator.Element]() : sequence
        let children: [Mirror.Child] =
            record ? [("sequence", shown), ("completion", completion)] : [("sequence", shown)]
        return Mirror(self, children: children)
    }

    func request(_ demand: Subscribers.Demand) {
        let start = state.withLock { state -> Downstream? in
            guard let downstream = state.downstream else { return nil }
            state.demand += demand
            guard !state.draining else { return nil }
            state.draining = true
            return downstream
        }
        guard let downstream = start else { return }
        while true {
            let step = state.withLock { state -> SequenceStep<Downstream.Input, Downstream.Failure> in
                guard state.downstream != nil else { return .stop }
                guard state.demand > 0, let element = state.next else {
                    if state.next == nil {
                        state.downstream = nil
                        return .complete(state.completion)
                    }
                    state.draining = false
                    return .stop
                }
                state.demand -= 1
                state.next = state.iterator.next()
                return .emit(element)
            }
            switch step {
            case .stop:
                return
            case .complete(let completion):
                downstream.receive(completion: completion)
                return
            case .emit(let element):
                let more = downstream.receive(element)
                if more > 0 { state.withLock { $0.demand += more } }
            }
        }
    }

    func cancel() {
        state.withLock { $0.downstream = nil }
    }
}

private enum SequenceStep<Element, Failure: Error> {
    case emit(Element)
    case complete(Subscribers.Completion<Failure>)
    case stop
}

// NB: @unchecked Sendable: it only lives inside its subscription's Mutex.
private struct SequenceState<Downstream: Subscriber, Iterator: IteratorProtocol>: @unchecked Sendable {
    var downstream: Downstream?
    var next: Iterator.Element?
    var iterator: Iterator
    var completion: Subscribers.Completion<Downstream.Failure>
    var demand = Subscribers.Demand.none
    var draining = false
}
