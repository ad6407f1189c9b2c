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
            let log = PrintLog(prefix: prefix, stream: stream)
            upstream.handleEvents(
                receiveSubscription: { _ in log.write("receive subscription") },
                receiveOutput: { log.write("receive value: (\($0))") },
                receiveCompletion: { completion in
                    switch completion {
                    case .finished: log.write("receive finished")
                    case .failure(let error): log.write("receive error: (\(error))")
                    }
                },
                receiveCancel: { log.write("receive cancel") },
                receiveRequest: { log.write("request \($0)") }
            ).subscribe(subscriber, name: "Print")
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
                slot.stream!.write(text + "\n")
            }
        }
    }
}

// NB: @unchecked Sendable: it only lives inside its log's Mutex.
private struct StreamSlot: @unchecked Sendable {
    var stream: (any TextOutputStream)?
}
