import Synchronization

/// A publisher that exposes its elements as an asynchronous sequence.
///
/// ```swift
/// for await value in subject.values { print(value) }
/// ```
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
    /// The type of element produced by this asynchronous sequence.
    public typealias Element = P.Output

    private let publisher: P

    /// Creates a publisher that exposes elements received from an upstream publisher as an asynchronous sequence.
    public init(_ publisher: P) { self.publisher = publisher }

    /// The iterator that produces elements of the asynchronous publisher sequence.
    public struct Iterator: AsyncIteratorProtocol {
        let inner: AsyncInner<P.Output, Never>

        /// Produces the next element in the sequence, or nil once the publisher finishes or the task is cancelled.
        public mutating func next() async -> P.Output? {
            try? await inner.next()
        }
    }

    /// Creates the asynchronous iterator that produces elements of this asynchronous sequence.
    public func makeAsyncIterator() -> Iterator {
        let inner = AsyncInner<P.Output, Never>()
        publisher.subscribe(inner)
        return Iterator(inner: inner)
    }
}

/// A publisher that exposes its elements as an asynchronous throwing sequence.
///
/// ```swift
/// for try await data in fetch.values { print(data.count) }
/// ```
public struct AsyncThrowingPublisher<P: Publisher>: AsyncSequence {
    /// The type of element produced by this asynchronous sequence.
    public typealias Element = P.Output

    private let publisher: P

    /// Creates a publisher that exposes elements received from an upstream publisher as a throwing asynchronous
    /// sequence.
    public init(_ publisher: P) { self.publisher = publisher }

    /// The iterator that produces elements of the asynchronous publisher sequence.
    public struct Iterator: AsyncIteratorProtocol {
        let inner: AsyncInner<P.Output, P.Failure>

        /// Produces the next element in the sequence; throws the publisher's failure.
        public mutating func next() async throws -> P.Output? {
            try await inner.next()
        }
    }

    /// Creates the asynchronous iterator that produces elements of this asynchronous sequence.
    public func makeAsyncIterator() -> Iterator {
        let inner = AsyncInner<P.Output, P.Failure>()
        publisher.subscribe(inner)
        return Iterator(inner: inner)
    }
}

extension Publisher where Failure == Never {
    /// The elements produced by the publisher, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await tasks in viewModel.tasks.values { render(tasks) }
    /// ```
    public var values: AsyncPublisher<Self> { AsyncPublisher(self) }
}

extension Publisher {
    /// The elements produced by the publisher, as a throwing asynchronous sequence.
    ///
    /// ```swift
    /// for try await output in session.dataTaskPublisher(for: url).values { print(output.data.count) }
    /// ```
    public var values: AsyncThrowingPublisher<Self> { AsyncThrowingPublisher(self) }
}

/// Requests one element per `next()` call and hands it to the waiting continuation. As Combine's: a value
/// before the subscription ends the waiting calls with nil, one after the end is dropped, a value nobody waits
/// for (beyond the demand) traps, and a failure is thrown to one `next()` call only (the others, and every
/// later one, get nil).
// NB: @unchecked Sendable: all state is Mutex-guarded; elements cross from the publisher's thread to the
// awaiting task exactly once.
final class AsyncInner<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    private let state = Mutex(AsyncInnerState<Input, Failure>())

    func receive(subscription: any Subscription) {
        let (accepted, demand) = state.withLock { state -> (Bool, Int) in
            guard case .awaiting = state.status else { return (false, 0) }
            state.status = .subscribed(subscription)
            return (true, state.requestedBeforeSubscription)
        }
        guard accepted else { return subscription.cancel() }
        if demand > 0 { subscription.request(.max(demand)) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let early = state.withLock { state -> [CheckedContinuation<Input?, any Error>] in
            guard case .awaiting = state.status else { return [] }
            defer { state.waiting = [] }
            return state.waiting
        }
        // NB: as Combine's, a value before the subscription ends the calls waiting then with nil (what they asked
        // for is still requested once the subscription comes).
        for continuation in early { continuation.resume(returning: nil) }
        let waiting = state.withLock { state -> CheckedContinuation<Input?, any Error>? in
            guard case .subscribed = state.status else { return nil }
            precondition(!state.waiting.isEmpty, "values received a value beyond the demand of its next() calls")
            return state.waiting.removeFirst()
        }
        // NB: the element is handed over once; the publisher never touches it again.
        let handOver = HandOver(value: input)
        waiting?.resume(returning: handOver.value)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let waiting = state.withLock { state -> [CheckedContinuation<Input?, any Error>] in
            guard state.completion == nil else { return [] }
            state.status = .terminal
            // NB: a failure goes to the first waiting call, or is kept for the next one; after it, nil.
            state.completion = state.waiting.isEmpty ? completion.eraseError : .finished
            defer { state.waiting = [] }
            return state.waiting
        }
        for (index, continuation) in waiting.enumerated() {
            continuation.resume(with: AsyncInner.ending(index == 0 ? completion.eraseError : .finished))
        }
    }

    func cancel() {
        let (subscription, waiting) = state.withLock {
            state -> ((any Subscription)?, [CheckedContinuation<Input?, any Error>]) in
            state.completion = .finished
            defer { state.waiting = [] }
            return (state.status.terminate(), state.waiting)
        }
        subscription?.cancel()
        for continuation in waiting { continuation.resume(returning: nil) }
    }

    private static func ending(_ completion: Subscribers.Completion<any Error>) -> Result<Input?, any Error> {
        switch completion {
        case .finished: .success(nil)
        case .failure(let error): .failure(error)
        }
    }

    func next() async throws -> Input? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Input?, any Error>) in
                let action = state.withLock { state -> AsyncNextAction<Input> in
                    if let completion = state.completion {
                        state.completion = .finished
                        return .resume(AsyncInner.ending(completion))
                    }
                    // Concurrent `next()` calls each wait in turn and each ask for one element.
                    state.waiting.append(continuation)
                    if case .awaiting = state.status { state.requestedBeforeSubscription += 1 }
                    return .request(state.status.subscription)
                }
                switch action {
                case .resume(let result):
                    let handOver = HandOver(value: result)
                    continuation.resume(with: handOver.value)
                case .request(let subscription):
                    subscription?.request(.max(1))
                }
            }
        } onCancel: {
            cancel()
        }
    }
}

private enum AsyncNextAction<Input> {
    case resume(Result<Input?, any Error>)
    case request((any Subscription)?)
}

// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct AsyncInnerState<Input, Failure: Error>: @unchecked Sendable {
    var status = SubscriptionStatus.awaiting
    var waiting: [CheckedContinuation<Input?, any Error>] = []
    /// How many `next()` calls asked for a value before the subscription came.
    var requestedBeforeSubscription = 0
    var completion: Subscribers.Completion<any Error>?
}

/// Carries an element from the publisher's thread to the awaiting task.
// NB: @unchecked Sendable: each element is handed over exactly once and not touched by the sender afterwards.
private struct HandOver<Value>: @unchecked Sendable {
    let value: Value
}
