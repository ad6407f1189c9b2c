import Dispatch
import Domain
import Synchronization

/// A collection's items filed by id (`DocumentItemsLoad`) on a queue of their own, a batch at a time, while
/// the load reads and checks the items after them.
///
/// NB: filing an item in the index of ids waits on memory (0.13 s of CPU for the 463,000 items of a 100 MB
/// file): on the load's own thread it was a quarter of its work, while the machine's other core had room.
/// The load checks each id before (`DataFileIDs`), so the filing refuses none. At most `pending` batches
/// wait for it.
final class DataFileFiler: Sendable {
    private let queue = DispatchQueue(label: "livestate.data-file-filing")
    private let load = Mutex(DocumentItemsLoad())
    private let slots = DispatchSemaphore(value: pending)

    /// How many batches may wait to be filed.
    private static let pending = 8

    /// Makes room for `count` items in all (`DocumentItemsLoad.expect`).
    func expect(_ count: Int) {
        queue.async { self.load.withLock { $0.expect(count) } }
    }

    /// Files `batch` after the items given before it; each has an id no earlier item has.
    func file(_ batch: [StoredDocument]) {
        guard !batch.isEmpty else { return }
        slots.wait()
        queue.async {
            self.load.withLock { load in
                for document in batch {
                    let filed = load.append(document)
                    precondition(filed, "the load checks each id before it is filed")
                }
            }
            self.slots.signal()
        }
    }

    /// Replaces each item filed so far with `change` of it (the same item in another form).
    func replaceAll(_ change: @escaping @Sendable (StoredDocument) -> StoredDocument) {
        queue.async { self.load.withLock { $0.replace(with: $0.documents.map(change)) } }
    }

    /// The items filed, once every batch given is.
    func finish() -> DocumentItemsLoad {
        queue.sync {}
        return load.withLock { load in
            defer { load = DocumentItemsLoad() }
            return load
        }
    }
}
