/// A publisher that provides an explicit means of connecting and canceling publication.
///
/// ```swift
/// let shared = upstream.makeConnectable()
/// shared.sink { print($0) }.store(in: &bag)
/// let connection = shared.connect()
/// ```
public protocol ConnectablePublisher<Output, Failure>: Publisher {
    /// Connects to the publisher, allowing it to produce elements, and returns an instance with which to cancel
    /// publishing.
    func connect() -> any Cancellable
}

extension ConnectablePublisher {
    /// Automates the process of connecting or disconnecting from this connectable publisher.
    ///
    /// ```swift
    /// upstream.multicast { PassthroughSubject() }.autoconnect()
    /// ```
    public func autoconnect() -> Publishers.Autoconnect<Self> {
        Publishers.Autoconnect(upstream: self)
    }
}
