public import Synchronization

extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon subscription.
    ///
    /// ```swift
    /// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
    /// Just(1).subscribe(sink)
    /// ```
    // NB: @unchecked Sendable: the subscription slot is Mutex-guarded; the closures are read only by a delivery
    // counted in `gate` and dropped only once no delivery is running (see `gate`).
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        /// The closure to execute on receipt of a value (a no-op once the sink has completed or been cancelled).
        public var receiveValue: (Input) -> Void { handlers?.takeUnretainedValue().receiveValue ?? { _ in } }
        /// The closure to execute on completion (a no-op once the sink has completed or been cancelled).
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            handlers?.takeUnretainedValue().receiveCompletion ?? { _ in }
        }
        /// The user's closures (+1), until completion or cancel drops them (as Combine's sink does, which breaks
        /// a retain cycle through `self` in them). A delivery calls them through a guaranteed reference, so a
        /// value costs no retain and release of the closures.
        @exclusivity(unchecked) @usableFromInline var handlers: Unmanaged<SinkHandlers<Input, Failure>>?
        /// `SinkGate` bits, and above them the number of deliveries running.
        @usableFromInline let gate = Atomic<UInt>(0)
        @usableFromInline let status = Mutex<SubscriptionStatus>(.awaiting)

        /// Initializes a sink with the provided closures.
        @inlinable
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            handlers = Unmanaged.passRetained(
                SinkHandlers(receiveValue: receiveValue, receiveCompletion: receiveCompletion))
        }

        deinit { handlers?.release() }

        /// A textual representation of this subscriber: `"Sink"`, as in Combine.
        public var description: String { "Sink" }

        /// The sink's mirror: no children, as in Combine.
        public var customMirror: Mirror { Mirror(self, children: [:]) }

        /// What a playground shows for the sink: its description.
        public var playgroundDescription: Any { description }

        /// Stores the subscription and requests unlimited values; a second subscription is cancelled.
        public func receive(subscription: any Subscription) {
            let accepted = status.withLock { status -> Bool in
                guard case .awaiting = status, gate.load(ordering: .relaxed) & SinkGate.ended == 0 else {
                    return false
                }
                status = .subscribed(subscription)
                return true
            }
            if accepted { subscription.request(.unlimited) } else { subscription.cancel() }
        }

        /// Calls `receiveValue`, unless the sink has ended (as Combine's, even before its subscription).
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            let prior = gate.wrappingAdd(SinkGate.running, ordering: .acquiring).oldValue
            if prior & SinkGate.ended == 0 {
                handlers.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.receiveValue(value) }
            }
            leave()
            return .none
        }

        /// Calls `receiveCompletion` once and lets go of the subscription and the closures.
        public func receive(completion: Subscribers.Completion<Failure>) {
            gate.wrappingAdd(SinkGate.running, ordering: .acquiring)
            let wasLive =
                gate.bitwiseOr(SinkGate.ended, ordering: .acquiringAndReleasing).oldValue & SinkGate.ended == 0
            if wasLive {
                status.withLock { $0 = .terminal }
                handlers.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.receiveCompletion(completion) }
            }
            leave()
        }

        /// Cancels the subscription and drops the closures; no completion is delivered afterwards. Before the
        /// subscription there is nothing to cancel: as Combine's, the sink then goes on as if not cancelled.
        public func cancel() {
            let upstream = status.withLock { status -> (any Subscription)? in
                guard let upstream = status.subscription else { return nil }
                status = .terminal
                return upstream
            }
            guard let upstream else { return }
            let prior = gate.bitwiseOr(SinkGate.ended, ordering: .acquiringAndReleasing).oldValue
            upstream.cancel()
            if prior < SinkGate.running { release() }
        }

        /// Ends a delivery; the last one out after the sink ended drops the closures.
        @inlinable
        func leave() {
            let after = gate.wrappingSubtract(SinkGate.running, ordering: .acquiringAndReleasing).newValue
            if after < SinkGate.running, after & SinkGate.ended != 0 { release() }
        }

        /// Drops the closures once (whoever claims `released` first).
        @usableFromInline
        func release() {
            let prior = gate.bitwiseOr(SinkGate.released, ordering: .acquiringAndReleasing).oldValue
            guard prior & SinkGate.released == 0 else { return }
            let held = handlers
            handlers = nil
            held?.release()
        }
    }
}

/// A sink's two closures, kept together so dropping them is one store.
@usableFromInline
final class SinkHandlers<Input, Failure: Error> {
    @usableFromInline let receiveValue: (Input) -> Void
    @usableFromInline let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

    @inlinable
    init(
        receiveValue: @escaping (Input) -> Void,
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void
    ) {
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }
}

/// Bits of `Subscribers.Sink.gate`; from `running` up it counts deliveries in progress.
@usableFromInline
enum SinkGate {
    @usableFromInline static let ended: UInt = 1
    @usableFromInline static let released: UInt = 4
    @usableFromInline static let running: UInt = 8
}

extension Publisher {
    /// Attaches a subscriber with closure-based behavior.
    ///
    /// ```swift
    /// publisher.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) }).store(in: &bag)
    /// ```
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        receive(subscriber: sink)
        return AnyCancellable(object: sink)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
    ///
    /// ```swift
    /// subject.sink { print($0) }.store(in: &bag)
    /// ```
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
