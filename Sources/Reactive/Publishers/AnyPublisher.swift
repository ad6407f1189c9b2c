/// A publisher that performs type erasure by wrapping another publisher.
///
/// ```swift
/// func load() -> AnyPublisher<[Post], any Error> { posts.eraseToAnyPublisher() }
/// ```
@frozen
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline let box: PublisherBoxBase<Output, Failure>

    /// Creates a type-erasing publisher to wrap the provided publisher.
    @inlinable
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        if let erased = publisher as? AnyPublisher<Output, Failure> {
            box = erased.box
        } else {
            box = PublisherBox(publisher)
        }
    }

    /// A textual representation of this publisher.
    public var description: String { "AnyPublisher" }

    /// "AnyPublisher", as `description`.
    public var playgroundDescription: Any { description }

    /// Attaches the subscriber to the wrapped publisher.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        box.receive(subscriber: subscriber)
    }
}

/// The erased publisher's vtable.
@usableFromInline
class PublisherBoxBase<Output, Failure: Error>: @unchecked Sendable {
    @inlinable init() {}
    @inlinable
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {}
}

/// Holds the concrete publisher.
@usableFromInline
final class PublisherBox<P: Publisher>: PublisherBoxBase<P.Output, P.Failure>, @unchecked Sendable {
    @usableFromInline let publisher: P
    @inlinable init(_ publisher: P) { self.publisher = publisher }
    @inlinable
    override func receive<S: Subscriber>(subscriber: S) where S.Input == P.Output, S.Failure == P.Failure {
        publisher.receive(subscriber: subscriber)
    }
}

extension Publisher {
    /// Wraps this publisher with a type eraser.
    ///
    /// ```swift
    /// let erased: AnyPublisher<Int, Never> = Just(1).eraseToAnyPublisher()
    /// ```
    @inlinable
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> { AnyPublisher(self) }
}
