import HTTP
import Synchronization

/// An event's frame made when a client first reads it, once: the thread that reads it first writes it
/// (under the lock, so one that reads it meanwhile waits and shares it), and what it was made from is let go.
/// Its size is known from the start, so the recent-events log bounds it as if it were made.
///
/// ```swift
/// let frame = EventFrame(id: 7, name: "posts", jsonCount: size, write: resource.bytesLater)
/// frame.bytes  // made now, the first time; the same object every time after
/// ```
final class EventFrame: Sendable {
    private enum State {
        case later(@Sendable (inout [UInt8]) -> Void)
        case made(SharedBytes)
    }

    /// The frame's size in bytes (made or not).
    let count: Int
    private let id: UInt64
    private let name: String
    private let jsonCount: Int
    private let state: Mutex<State>

    /// A frame `SSE.event(id:name:json:)` of the JSON `write` appends, `jsonCount` bytes.
    init(id: UInt64, name: String, jsonCount: Int, write: @escaping @Sendable (inout [UInt8]) -> Void) {
        self.id = id
        self.name = name
        self.jsonCount = jsonCount
        count = SSE.eventCount(id: id, name: name, jsonCount: jsonCount)
        state = Mutex(.later(write))
    }

    /// The frame, made on the first call.
    var bytes: SharedBytes {
        state.withLock { state in
            switch state {
            case .made(let bytes):
                return bytes
            case .later(let write):
                let bytes = SharedBytes(SSE.event(id: id, name: name, jsonCount: jsonCount, write: write))
                state = .made(bytes)
                return bytes
            }
        }
    }

    /// Whether the frame was made (tests).
    var isMade: Bool {
        state.withLock { state in
            if case .made = state { return true }
            return false
        }
    }
}
