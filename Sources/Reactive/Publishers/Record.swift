/// A publisher that allows for recording a series of inputs and a completion, for later playback to each
/// subscriber.
///
/// ```swift
/// let record = Record<Int, Never>(output: [1, 2], completion: .finished)
/// ```
public struct Record<Output, Failure: Error>: Publisher {
    /// The recorded output and completion.
    public let recording: Recording

    /// A recorded sequence of outputs, followed by a completion value.
    public struct Recording {
        /// The output which will be sent to a subscriber.
        public private(set) var output: [Output]
        /// The completion which will be sent to a subscriber.
        public private(set) var completion: Subscribers.Completion<Failure>
        private var isComplete = false

        /// Set up a recording in a state ready to receive output.
        public init() {
            output = []
            completion = .finished
        }

        /// Set up a complete recording with the specified output and completion.
        public init(output: [Output], completion: Subscribers.Completion<Failure> = .finished) {
            self.output = output
            self.completion = completion
            isComplete = true
        }

        /// Add an output to the recording.
        public mutating func receive(_ input: Output) {
            precondition(!isComplete, "Receiving output after receiving completion")
            output.append(input)
        }

        /// Add a completion to the recording.
        public mutating func receive(completion: Subscribers.Completion<Failure>) {
            precondition(!isComplete, "Receiving completion after receiving completion")
            self.completion = completion
            isComplete = true
        }
    }

    /// Creates a publisher to interactively record a series of outputs and a completion.
    public init(record: (inout Recording) -> Void) {
        var recording = Recording()
        record(&recording)
        self.recording = recording
    }

    /// Creates a record publisher from an existing recording.
    public init(recording: Recording) { self.recording = recording }

    /// Creates a record publisher to publish the provided records and completion.
    public init(output: [Output], completion: Subscribers.Completion<Failure>) {
        recording = Recording(output: output, completion: completion)
    }

    /// Plays the recording back to the subscriber, as demanded.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(sequence: recording.output, then: recording.completion, record: true)
    }
}

/// A record encodes its recording under the key `recording`, as Combine's does.
extension Record: Codable where Output: Codable, Failure: Codable {}

/// A recording encodes its outputs under `output` and its completion under `completion`, as Combine's does; a
/// decoded recording is complete.
extension Record.Recording: Codable where Output: Codable, Failure: Codable {
    private enum CodingKeys: String, CodingKey {
        case output
        case completion
    }

    /// Decodes a complete recording.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            output: try container.decode([Output].self, forKey: .output),
            completion: try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion))
    }

    /// Encodes the outputs and the completion.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(output, forKey: .output)
        try container.encode(completion, forKey: .completion)
    }

    /// Encodes the recording (Combine's spelling of `encode(to:)`).
    public func encode(into encoder: any Encoder) throws { try encode(to: encoder) }
}
