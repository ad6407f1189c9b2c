import Synchronization

extension Subscribers {
    /// A simple subscriber that assigns received elements to a property indicated by a key path.
    ///
    /// ```swift
    /// subject.assign(to: \.title, on: model).store(in: &bag)
    /// ```
    // NB: @unchecked Sendable: all mutable state is Mutex-guarded.
    public final class Assign<Root, Input>: Subscriber, Cancellable, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
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
        /// A textual representation of this subscriber: `"Assign Root."`, as in Combine.
        public var description: String { "Assign \(Root.self)." }

        /// The subscriber's mirror: the object, the key path and the subscription status, as in Combine.
        public var customMirror: Mirror {
            let (object, status) = state.withLock { ($0.object, $0.status) }
            return Mirror(self, children: ["object": object as Any, "keyPath": keyPath, "status": status])
        }

        /// What a playground shows for the subscriber: its description.
        public var playgroundDescription: Any { description }

        /// Stores the subscription and requests unlimited values; a second subscription is cancelled.
        public func receive(subscription: any Subscription) {
            let accepted = state.withLock { $0.status.accept(subscription) }
            if accepted { subscription.request(.unlimited) } else { subscription.cancel() }
        }

        /// Writes the value to the object's property; ignored before a subscription and after the end.
        public func receive(_ value: Input) -> Subscribers.Demand {
            let object = state.withLock { state -> Root? in
                guard case .subscribed = state.status else { return nil }
                return state.object
            }
            if let object { object[keyPath: keyPath] = value }
            return .none
        }

        /// Lets go of the object and the subscription.
        public func receive(completion: Subscribers.Completion<Never>) {
            // The object leaves the lock before it is released: its deinit may cancel this subscriber.
            let released = state.withLock { state -> Root? in
                state.status = .terminal
                defer { state.object = nil }
                return state.object
            }
            _ = released
        }

        /// Cancels the subscription and lets go of the object.
        public func cancel() {
            let (subscription, released) = state.withLock { state -> ((any Subscription)?, Root?) in
                defer { state.object = nil }
                return (state.status.terminate(), state.object)
            }
            subscription?.cancel()
            _ = released
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
