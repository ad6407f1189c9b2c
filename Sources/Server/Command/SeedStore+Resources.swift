import Domain
import Reactive
import Storage
import StrictJSON
import Synchronization

/// The resources of the seeds' store: each input a singular resource relayed to the seeds' handler, and the
/// todos held as the plans read them.
extension SeedStore {
    /// A resource of the store whose committed entries also go to `follow`'s handler.
    final class Relayed: StoreResource {
        let held: DocumentResource
        let deliver: @Sendable (JournalEntry) -> Void

        init(_ held: DocumentResource, deliver: @escaping @Sendable (JournalEntry) -> Void) {
            self.held = held
            self.deliver = deliver
        }

        var name: String { held.name }
        var kind: DocumentResource.Kind { held.kind }
        var items: DocumentItems { held.items }
        var count: Int { held.count }
        var singular: StoredDocument? { held.singular }
        var fileSize: Int { 0 }
        func document(_ id: DocumentID) -> StoredDocument? { held.document(id) }
        func apply(_ entry: DocumentEntry) {
            held.committed.send(entry)
            deliver(SeedStore.journalEntry(entry))
        }
    }

    /// The todos as the plans read them: each todo's compact JSON by id (no tree of its members: the task list
    /// holds the todos themselves), and every committed entry handed on.
    final class HeldTodos: StoreResource {
        let name = JournalChange.todos
        let kind = DocumentResource.Kind.collection
        let fileSize = 0
        let singular: StoredDocument? = nil
        private let todos: Mutex<[String: StoredDocument]>
        /// Catch-up changes were applied (`tookCurrent` hands on the whole list).
        private let caughtUp = Mutex(false)
        let deliver: @Sendable (JournalEntry) -> Void

        init(_ documents: [StoredDocument], deliver: @escaping @Sendable (JournalEntry) -> Void) {
            todos = Mutex(
                Dictionary(documents.compactMap { document in document.id.map { ($0.key, document) } }) { $1 })
            self.deliver = deliver
        }

        /// Built on each read (the store reads it once, at start): in id order.
        var items: DocumentItems {
            DocumentItems(
                todos.withLock { Array($0.values) }.sorted { Int($0.id?.key ?? "") ?? 0 < Int($1.id?.key ?? "") ?? 0 })
        }
        var count: Int { todos.withLock { $0.count } }
        func document(_ id: DocumentID) -> StoredDocument? { todos.withLock { $0[id.key] } }
        func apply(_ entry: DocumentEntry) {
            guard let id = entry.id else { return }
            todos.withLock { todos in
                todos[id.key] = entry.document.map { StoredDocument(id: id, object: $0, keepsTree: false) }
            }
            // NB: catch-up changes (entries this server missed were deleted by retention) go on as one whole
            // list, so the list's clients get it once, not item by item.
            guard entry.isJournaled else { return caughtUp.withLock { $0 = true } }
            deliver(SeedStore.journalEntry(entry))
        }

        /// The list as the database holds it at `seq`, handed on as one change (`TodoChange.all`).
        func tookCurrent(at seq: Int64) {
            let taken = caughtUp.withLock { caughtUp in
                defer { caughtUp = false }
                return caughtUp
            }
            guard taken else { return }
            let list = todos.withLock { Array($0.values) }.compactMap { SeedStore.todo($0.object) }.sorted {
                $0.id < $1.id
            }
            deliver(JournalEntry(seq: seq, change: JournalChange(TodoChange.all(list))))
        }
    }

    /// A committed entry as the seeds' handler reads it.
    static func journalEntry(_ entry: DocumentEntry) -> JournalEntry {
        let body = entry.document.map { String(decoding: $0.compactBytes, as: UTF8.self) }
        return JournalEntry(
            seq: entry.seq, change: JournalChange(collection: entry.resource, id: entry.id?.key, document: body))
    }
}
