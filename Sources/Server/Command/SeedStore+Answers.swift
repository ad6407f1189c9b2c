import Domain

/// A committed input entry of the seeds' store (`SeedStore.append`).
struct JournalAppended: Sendable {
    /// Its journal id.
    var seq: Int64
    /// Answered from the entry of an earlier request with the same key, not committed by this one.
    var repeated: Bool
    /// That earlier request's JSON when `repeated`.
    var first: String?
    /// The entry `seq`, committed by this request unless `repeated` (then `first` is its JSON).
    init(seq: Int64, repeated: Bool = false, first: String? = nil) {
        self.seq = seq
        self.repeated = repeated
        self.first = first
    }
}

/// What the seeds' store held at start: the todos and the journal id they reflect (`SeedStore.start`).
struct JournalSnapshot: Sendable {
    /// Every todo, ordered by id.
    var todos: [Todo]
    /// The journal id the todos reflect; the server numbers its events that are not journaled after it.
    var lastSeq: Int64

    /// A snapshot of `todos` at `lastSeq`.
    init(todos: [Todo], lastSeq: Int64) {
        self.todos = todos
        self.lastSeq = lastSeq
    }
}

/// What the seeds' store did with a todo write it could judge (`SeedStore.submitTodo`).
enum TodoWriteOutcome: Sendable, Equatable {
    /// Committed and applied here: the todo as written (nil for a delete, or a repeated delete).
    case committed(Todo?)
    /// No todo has this id: nothing was written.
    case notFound(id: Int)
    /// The list already holds `limit` todos (`--max-todos`): the insert was not written.
    case full(limit: Int)

    /// The todo as committed; nil for a delete and for a write that was not written.
    var todo: Todo? {
        if case .committed(let todo) = self { todo } else { nil }
    }
}
