import Dispatch
import StrictJSON
import Synchronization

/// A collection's next items read on another thread (`CompactItemReader`) while the load stores those
/// before them: the read (simdjson's parse and the writing of each item) and the storing take about as long,
/// and the machine has two cores.
final class DataFileReadAhead: Sendable {
    /// Where the read starts in the bytes it was given.
    let start: Int
    /// Which of the load's buffers it read (the load counts them: a new part moves every offset).
    let buffer: Int
    private let result = Mutex<(items: [CompactItemReader.Item], stop: CompactItemReader.Stop)?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts reading `bytes` from `start` with `reader` (whose reads take turns).
    init(_ reader: CompactItemReader, _ bytes: [UInt8], from start: Int, buffer: Int, idField: String, maxDepth: Int) {
        self.start = start
        self.buffer = buffer
        DispatchQueue.global().async {
            let read = reader.read(
                bytes, from: start, maxBytes: DataFileContent.readBytes, idField: idField, maxDepth: maxDepth)
            self.result.withLock { $0 = read }
            self.done.signal()
        }
    }

    /// The items read, once they are.
    func wait() -> (items: [CompactItemReader.Item], stop: CompactItemReader.Stop) {
        done.wait()
        return result.withLock { $0 } ?? ([], .incomplete)
    }
}
