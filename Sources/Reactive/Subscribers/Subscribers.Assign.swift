import Synchronization

extension Subscribers {
    /// A simple subscriber that assigns received elements to a property indicated by a key path.
    ///
    /// ```swift
    /// subject.assign(to: \.title, on: model).store(in: &bag)
    /// ```
    // NB: @unchecked Sendable: all mutable state is Mutex-guarded.
    public final class Assign<Root, Input>: Subscriber, Cancellable, CustomStringConvertible, @unchecked Sendable {
        /// This subscriber never fails.
        public typealias Failure = Never

        /// The key path that indicates the property to assign.
        public let keyPath: ReferenceWritableKeyPath<Root, Input>
        private let state: Mutex<AssignState<Root>>

        /// The object that contains the property to assign, until completion or cancellation.
        public var object: Root? { state.withLock { $0.object } }

        /// Creates a subscriber to assign the value of a property indicated by a key path.
        public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
            self.keyPath = keyPath
            state = Mutex(AssignState(status: .awaiting, object: object))
        }

        /// A textual representation of this subscriber.
        public var description: String { "Assign \(Root.self)." }

        /// Stores the subscription and requests unlimited values.
        public func receive(subscription: any Subscription) {
            let accepted = state.withLock { state -> Bool in
                guard case .awaiting = state.status else { return false }
                state.status = .subscribed(subscription)
                return true
            }
            if accepted { subscription.request(.unlimited) } else { subscription.cancel() }
        }

        /// Assigns the value to the object's property.
        public func receive(_ value: Input) -> Subscribers.Demand {
            if let object = state.withLock({ $0.object }) {
                object[keyPath: keyPath] = value
            }
            return .none
        }

        /// Releases the object.
        public func receive(completion: Subscribers.Completion<Never>) {
            state.withLock { state in
                state.status = .terminal
                state.object = nil
            }
        }

        /// Cancels the subscription and releases the object.
        public func cancel() {
            state.withLock { state -> (any Subscription)? in
                state.object = nil
                return state.status.terminate()
            }?.cancel()
        }
    }
}

extension Publisher where Failure == Never {
    /// Assigns each element from a publisher to a property on an object.
    ///
    /// ```swift
    /// $name.assign(to: \.title, on: label).store(in: &bag)
    /// ```
    public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root) -> AnyCancellable {
        let assign = Subscribers.Assign(object: object, keyPath: keyPath)
        subscribe(assign)
        return AnyCancellable(object: assign)
    }
}

/// The subscription and target object of an `Assign` subscriber.
// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct AssignState<Root>: @unchecked Sendable {
    var status: SubscriptionStatus
    var object: Root?
}
