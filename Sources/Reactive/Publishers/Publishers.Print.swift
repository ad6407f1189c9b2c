import Synchronization

extension Publishers {
    /// A publisher that prints log messages for all publishing events, optionally prefixed with a given string.
    public struct Print<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// A string with which to prefix all log messages.
        public let prefix: String
        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A stream for receiving the log output, or nil for standard output.
        public let stream: (any TextOutputStream)?

        /// Creates a publisher that prints log messages for all publishing events.
        public init(upstream: Upstream, prefix: String, to stream: (any TextOutputStream)? = nil) {
            self.upstream = upstream
            self.prefix = prefix
            self.stream = stream
        }

        /// Attaches the subscriber through an inner object that logs each event.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(PrintInner(downstream: subscriber, log: PrintLog(prefix: prefix, stream: stream)))
        }
    }
}

extension Publisher {
    /// Prints log messages for all publishing events.
    ///
    /// ```swift
    /// [1].publisher.print("numbers").sink { _ in }   // numbers: receive subscription, request unlimited, ...
    /// ```
    public func print(_ prefix: String = "", to stream: (any TextOutputStream)? = nil) -> Publishers.Print<Self> {
        Publishers.Print(upstream: self, prefix: prefix, to: stream)
    }
}

/// The subscriber of `print` ("Print"): it logs every event as Combine's does, with the same words, and passes
/// each one on as it comes. Only the first subscription is kept and handed on (a later one is logged and
/// cancelled); requests and a cancel reach the upstream until the first cancel, and are logged even after it.
// NB: @unchecked Sendable: the status is Mutex-guarded; the log has its own lock; the downstream is called
// outside both.
private final class PrintInner<Downstream: Subscriber>: Subscriber, Subscription, CombineDescribed,
    @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let downstream: Downstream
    private let log: PrintLog
    private let status = Mutex(SubscriptionStatus.awaiting)
    var combineName: String { "Print" }

    init(downstream: Downstream, log: PrintLog) {
        self.downstream = downstream
        self.log = log
    }

    func receive(subscription: any Subscription) {
        log.write("receive subscription: (\(subscription))")
        guard status.withLock({ $0.accept(subscription) }) else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        log.write("receive value: (\(input))")
        let demand = downstream.receive(input)
        if demand != .none { log.write("request \(Self.describe(demand)) (synchronous)") }
        return demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: log.write("receive finished")
        case .failure(let error): log.write("receive error: (\(error))")
        }
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        log.write("request \(Self.describe(demand))")
        status.withLock { $0.subscription }?.request(demand)
    }

    /// A cancel before the subscription is only logged: the subscription, when it comes, is still taken.
    func cancel() {
        log.write("receive cancel")
        status.withLock { status -> (any Subscription)? in
            guard let upstream = status.subscription else { return nil }
            status = .terminal
            return upstream
        }?.cancel()
    }

    /// Combine's words for a demand in the log: "unlimited" or "max: (n)".
    private static func describe(_ demand: Subscribers.Demand) -> String {
        demand.max.map { "max: (\($0))" } ?? "unlimited"
    }
}

/// Writes one line per event, to the given stream or standard output.
// NB: @unchecked Sendable: the stream is only touched under the Mutex.
private final class PrintLog: @unchecked Sendable {
    private let prefix: String
    private let stream: Mutex<StreamSlot>

    init(prefix: String, stream: (any TextOutputStream)?) {
        self.prefix = prefix.isEmpty ? "" : "\(prefix): "
        self.stream = Mutex(StreamSlot(stream: stream))
    }

    func write(_ line: String) {
        let text = prefix + line
        stream.withLock { slot in
            if slot.stream == nil {
                Swift.print(text)
            } else {
                // NB: the three writes `print(_:to:)` makes (an empty string, the text, the line end), so a
                // stream sees what Combine's `print` gives it.
                slot.stream!.write("")
                slot.stream!.write(text)
                slot.stream!.write("\n")
            }
        }
    }
}

// NB: @unchecked Sendable: it only lives inside its log's Mutex.
private struct StreamSlot: @unchecked Sendable {
    var stream: (any TextOutputStream)?
}
