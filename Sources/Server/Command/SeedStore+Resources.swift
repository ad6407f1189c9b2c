import Domain
import Reactive
import Storage
import StrictJSON
import Support
import Synchronization

/// The resources of the seeds' store: the todos, and each other input a singular resource. Each holds what
/// the plans read and sends its committed entries into its own view model's input (`SeedStore.deliverTodos`,
/// `SeedStore.deliver(_:to:)`), in journal order, on its view model's thread (`SeedDeliveries`).
extension SeedStore {
    /// Where a resource's committed entries go: its view model's input, set once the view models exist.
    ///
    /// NB: the closure is a field of a struct, not a `Mutex`'s value itself: a closure read through the
    /// generic `inout` of `withLock` is written back wrapped in one more reabstraction thunk each time, so
    /// every entry cost more than the one before.
    struct Input<Value: Sendable>: Sendable {
        var call: (@Sendable (Value) -> Void)?
    }

    /// An input other than the todos (`SeedInput.Topic`): its newest value, and each committed value sent into
    /// its view model's input with the entry's id.
    ///
    /// NB: the value is kept as the entry's members (or, committed by another server, its text), made into an
    /// item only when a plan reads it (none of the seeds' plans does): an album image's entry is megabytes of
    /// base64, which the write thread would encode again to hold it as compact JSON, or parse to hold it.
    final class HeldInput: StoreResource {
        /// The newest value: an entry's members, or the journal's text of another server's entry.
        private enum Value {
            case members(JSONObject)
            case text(String)
        }

        let name: String
        let kind = DocumentResource.Kind.singular
        let fileSize = 0
        let input = Mutex(Input<(seq: Int64, payload: SeedInput.Payload)>())
        private let value: Mutex<Value?>
        private let deliveries: SeedDeliveries
        private let lane: SeedDeliveries.Lane

        init(name: String, value: JSONObject?, deliveries: SeedDeliveries) {
            self.name = name
            self.value = Mutex(value.map(Value.members))
            self.deliveries = deliveries
            lane = SeedDeliveries.Lane(resource: name)
        }

        var singular: StoredDocument? {
            switch value.withLock({ $0 }) {
            case .members(let object)?: StoredDocument(id: nil, object: object)
            case .text(let text)?: SeedStore.object(text).map { StoredDocument(id: nil, object: $0) }
            case nil: nil
            }
        }
        var items: DocumentItems { DocumentItems(singular.map { [$0] } ?? []) }
        var count: Int { value.withLock { $0 } == nil ? 0 : 1 }
        var knownIDs: (largest: Int64, allStrings: Bool)? { (0, false) }
        func document(_ id: DocumentID) -> StoredDocument? { nil }

        func apply(_ entry: DocumentEntry) {
            let object = entry.document
            value.withLock { $0 = object.map(Value.members) }
            deliveries.deliver(entry.seq, on: lane) { [self] in
                deliver(seq: entry.seq, payload: object.flatMap(SeedInput.Payload.init))
            }
        }

        let takesText = true

        /// Another server's entry: held as its text, parsed on the view model's thread.
        func apply(seq: Int64, text: String?) {
            value.withLock { $0 = text.map(Value.text) }
            deliveries.deliver(seq, on: lane) { [self] in deliver(seq: seq, json: text) }
        }

        /// Sends the value `json` of entry `seq` into the input (at start, or another server's entry).
        ///
        /// NB: parsed with StrictJSON and read from its members, not with `JSONDecoder`: an image entry is
        /// megabytes of base64.
        func deliver(seq: Int64, json: String?) {
            deliver(seq: seq, payload: json.flatMap(SeedStore.object).flatMap(SeedInput.Payload.init(object:)))
        }

        /// Sends the payload of entry `seq` into the input (on its view model's thread).
        private func deliver(seq: Int64, payload: SeedInput.Payload?) {
            guard let payload else { return Log.error("journal entry \(seq) (\(name)) cannot be read; skipped") }
            input.withLock { $0.call }?((seq, payload))
        }
    }

    /// The todos as the plans read them: the task list's own `Todo` values by id, so the list and the store
    /// share each todo (its title is one string in memory); a plan's read encodes the one todo it asks for.
    final class HeldTodos: StoreResource {
        let name = JournalChange.todos
        let kind = DocumentResource.Kind.collection
        let fileSize = 0
        let singular: StoredDocument? = nil
        private let todos: Mutex<[Int: Todo]>
        /// Catch-up changes were applied (`tookCurrent` hands on the whole list).
        private let caughtUp = Mutex(false)
        let input = Mutex(Input<Committed<TodoChange>>())
        private let deliveries: SeedDeliveries

        init(_ todos: [Todo], deliveries: SeedDeliveries) {
            self.todos = Mutex(Dictionary(todos.map { ($0.id, $0) }) { $1 })
            self.deliveries = deliveries
        }

        /// Built on each read (the store reads it at start and after missing entries): in id order.
        var items: DocumentItems {
            DocumentItems(todos.withLock { Array($0.values) }.sorted { $0.id < $1.id }.map(SeedStore.stored))
        }
        var count: Int { todos.withLock { $0.count } }
        /// Every todo's id is an integer: the store's counters need not make `items` (a copy of every todo).
        var knownIDs: (largest: Int64, allStrings: Bool)? { (Int64(todos.withLock { $0.keys.max() } ?? 0), false) }
        func document(_ id: DocumentID) -> StoredDocument? {
            guard let id = Int(id.key), let todo = todos.withLock({ $0[id] }) else { return nil }
            return SeedStore.stored(todo)
        }

        func apply(_ entry: DocumentEntry) {
            guard let id = entry.id.flatMap({ Int($0.key) }) else { return }
            var change = TodoChange.delete(id: id)
            if let document = entry.document {
                guard let todo = SeedStore.todo(document) else {
                    return Log.error("journal: entry \(entry.seq) of todos does not hold a todo; skipped")
                }
                change = .upsert(todo)
            }
            todos.withLock { $0[id] = change.todo }
            // NB: catch-up changes (entries this server missed were deleted by retention) go on as one whole
            // list, so the list's clients get it once, not item by item.
            guard entry.isJournaled else { return caughtUp.withLock { $0 = true } }
            send(Committed(seq: entry.seq, change: change))
        }

        /// The list as the database holds it at `seq`, handed on as one change (`TodoChange.all`).
        func tookCurrent(at seq: Int64) {
            let taken = caughtUp.withLock { caughtUp in
                defer { caughtUp = false }
                return caughtUp
            }
            guard taken else { return }
            send(Committed(seq: seq, change: .all(todos.withLock { Array($0.values) }.sorted { $0.id < $1.id })))
        }

        /// A change of an entry read again at start, as this store's todos hold it when it left the todo so.
        func held(_ change: TodoChange) -> TodoChange {
            guard case .upsert(let todo) = change, let held = todos.withLock({ $0[todo.id] }), held == todo else {
                return change
            }
            return .upsert(held)
        }

        private func send(_ committed: Committed<TodoChange>) {
            deliveries.deliver(committed.seq, on: .todos) { [self] in input.withLock { $0.call }?(committed) }
        }
    }
}

extension TodoChange {
    /// The todo an upsert leaves; nil for a delete or a whole list.
    fileprivate var todo: Todo? {
        if case .upsert(let todo) = self { todo } else { nil }
    }
}
