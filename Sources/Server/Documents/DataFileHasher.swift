import Dispatch
import Synchronization

/// The hash of a data file's bytes (`DataFileContent.hash`) and whether they hold a NUL byte, worked out a
/// part at a time on a queue of its own while the load parses the parts (on the machine's other core).
///
/// NB: FNV-1a takes a byte at a time, each waiting for the one before: on the load's own thread it was about
/// a tenth of a 100 MB file's load. At most `pending` parts wait for it, so that a slow hash holds a few
/// parts, never the file.
final class DataFileHasher: Sendable {
    private let queue = DispatchQueue(label: "livestate.data-file-hash")
    private let state = Mutex<(hash: UInt64, hasNUL: Bool)>((DataFileContent.hashBasis, false))
    private let slots = DispatchSemaphore(value: pending)

    /// How many parts may wait to be hashed.
    private static let pending = 2

    /// Hashes `part` after the parts given before it.
    func add(_ part: [UInt8]) {
        slots.wait()
        queue.async {
            let hasNUL = part.contains(0)
            self.state.withLock { state in
                state = (DataFileContent.hash(part, from: state.hash), state.hasNUL || hasNUL)
            }
            self.slots.signal()
        }
    }

    /// The hash of every part given, as 16 hex digits, and whether any held a NUL byte, once all are hashed.
    func finish() -> (hash: String, hasNUL: Bool) {
        queue.sync {}
        return state.withLock { (DataFileContent.hexadecimal($0.hash), $0.hasNUL) }
    }
}
