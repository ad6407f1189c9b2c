/// Declares that a type can transmit a sequence of values over time.
///
/// ```swift
/// let cancellable = Just(1).sink { print($0) }
/// ```
public protocol Publisher<Output, Failure> {
    /// The kind of values published by this publisher.
    associatedtype Output
    /// The kind of errors this publisher might publish.
    associatedtype Failure: Error

    /// Attaches the specified subscriber to this publisher.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
    /// Attaches the specified subscriber to this publisher.
    ///
    /// ```swift
    /// Just(1).subscribe(AnySubscriber(receiveValue: { print($0); return .none }))
    /// ```
    @inlinable
    public func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        receive(subscriber: subscriber)
    }
}
