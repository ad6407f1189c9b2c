import Foundation
import LibEvent
import Reactive
import Synchronization

@testable import HTTP
@testable import Server

/// An `HTTPStream` with no socket: it records what the hub writes, and plays a client that reads at
/// once (`pendingBytes` stays 0) or one that stopped reading (`isStalled`: every write stays pending).
final class RecordingStream: HTTPStream, @unchecked Sendable {
    // NB: @unchecked because tests use it from one thread, as the hub uses a stream on its loop.

    /// A loop that is never run: the recording stream only names it.
    static let idleLoop: EventLoop = try! EventLoop(name: "events-tests")

    let loop: any RequestLoop = RecordingStream.idleLoop
    /// Every byte written, in order.
    private(set) var written: [UInt8] = []
    /// Bytes not yet taken by the (simulated) client.
    var pendingBytes = 0
    /// Whether the client has stopped reading.
    var isStalled = false
    private(set) var isClosed = false
    private var closeActions: [@Sendable () -> Void] = []
    private var drainAction: (@Sendable () -> Void)?
    /// How many `write` calls (chunks) the stream got.
    private(set) var chunks = 0
    /// Called at each write (a test's probe of what happened before it).
    var onWrite: (() -> Void)?

    func write(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        onWrite?()
        chunks += 1
        written += bytes
        if isStalled { pendingBytes += bytes.count }
    }

    /// The frames of the last `write(_: [SharedBytes])`, as objects (to check they are shared).
    private(set) var lastFrames: [SharedBytes] = []

    func write(_ frames: [SharedBytes]) {
        guard !isClosed else { return }
        lastFrames = frames
        write(frames.flatMap(\.bytes))
    }

    func onDrain(_ action: @escaping @Sendable () -> Void) {
        drainAction = action
    }

    /// The (simulated) client reads everything pending, as a socket drains: the stream says so.
    func drain() {
        pendingBytes = 0
        drainAction?()
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        let actions = closeActions
        closeActions = []
        for action in actions { action() }
    }

    /// Whether the hub dropped this client (over the cap) rather than ending its stream.
    private(set) var wasAborted = false

    func abort() {
        guard !isClosed else { return }
        wasAborted = true
        pendingBytes = 0
        close()
    }

    func onClose(_ action: @escaping @Sendable () -> Void) {
        if isClosed { action() } else { closeActions.append(action) }
    }

    /// What was written, as text.
    var text: String { String(decoding: written, as: UTF8.self) }

    /// The events written so far, parsed as a browser would (comments dropped).
    var events: [SentEvent] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var event = SentEvent()
            var hasField = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix("id: ") { event.id = UInt64(line.dropFirst(4)); hasField = true }
                if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)); hasField = true }
                if line.hasPrefix("data: ") { event.data += String(line.dropFirst(6)); hasField = true }
            }
            return hasField && event.id != nil ? event : nil
        }
    }

    /// How many `: keep-alive` comments were written.
    var keepAlives: Int { text.components(separatedBy: ": keep-alive\n\n").count - 1 }
}

/// One event as a client parses it.
struct SentEvent: Equatable, CustomStringConvertible {
    var id: UInt64?
    var name = ""
    var data = ""

    var description: String { "\(id.map(String.init) ?? "-") \(name) \(data)" }
}

/// An item of a collection topic in tests.
struct Item: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var title: String
}

/// A value that counts how often it is encoded.
struct CountedValue: Encodable, Sendable {
    static let encodings = Atomic<Int>(0)
    var text: String

    func encode(to encoder: any Encoder) throws {
        Self.encodings.add(1, ordering: .relaxed)
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// A fixed clock for deterministic ids: every id is the previous one plus one, from `start`.
func fixedClock(_ start: UInt64 = 1_000) -> EventIDSource {
    EventIDSource(clock: { start })
}

/// A key for a test fan-out.
final class FanoutKey: Sendable {}
