package import Domain

/// The one storage protocol of both engines (docs/architecture-instances.md, "One storage protocol"): the
/// server commits every input through it and applies every committed entry from it, without knowing whether
/// the file is SQLite or the database PostgreSQL.
///
/// - A mutation and the entry it causes are committed in one transaction (no dual write); the completion
///   gets the committed result once the entry is applied here, or why not: a todo write that does not apply
///   (`TodoWriteOutcome.notFound`, `.full`) or storage's own error (`JournalError`: `.failed` with the
///   engine's code, `.unavailable`, `.busy`, `.outcomeUnknown` when it may have been applied).
/// - Entry ids follow commit order; `follow` hands the entries after an id to its handler, strictly in id
///   order, each exactly once, after every wake-up (NOTIFY on PostgreSQL; on SQLite the commit itself, in
///   the same process).
/// - `latest` answers the newest entry of a topic (what a server shows at start).
/// - Retention (the newest N entries kept) is the journal's own business.
///
/// Every call answers through its completion: PostgreSQL later, on its loop; SQLite at once, on the calling
/// thread (its writes are short and synchronous). Callers never block on either.
///
/// ```swift
/// let start = journal.start()                                 // startup only: blocks until storage answers
/// journal.follow(after: start.lastSeq) { entries in … }      // apply them, in order
/// journal.write(.insert(title: "Walk the dog", completed: false), key: nil) { result in … }
/// journal.append(topic: "frameworks", json: #"{"name":"Combine"}"#) { result in … }
/// ```
package protocol Journal: AnyObject, Sendable {
    /// Opens the storage (retrying while it is unreachable), creates or migrates its schema and reads the
    /// todos with their journal position. Blocks: startup only, never on a loop the journal answers on.
    func start() -> JournalSnapshot

    /// Hands every entry committed after `seq` to `handler`, in id order, each once.
    func follow(after seq: Int64, _ handler: @escaping @Sendable ([JournalEntry]) -> Void)

    /// Commits a todo write with its entry; `completion` gets `.committed` with the todo (nil for a delete)
    /// once the entry is applied here, or why the write does not apply. A write sent again with the `key` of
    /// one that committed is answered with what that one did and not applied again.
    func write(
        _ write: TodoWrite, key: String?,
        completion: @escaping @Sendable (Result<TodoWriteOutcome, JournalError>) -> Void)

    /// Commits one entry of `topic` holding `json` (an input other than a todo write); `completion` gets its
    /// id once it is applied here.
    func append(topic: String, json: String, completion: @escaping @Sendable (Result<Int64, JournalError>) -> Void)
    /// Commits one entry as `append` does, under `key` (the client's `Idempotency-Key`; nil: PostgreSQL makes
    /// one of its own, SQLite stores none); `completion` gets it once applied here — `repeated`, with the first
    /// request's JSON, when the key was committed before.
    func append(
        topic: String, json: String, key: String?,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void)

    /// The newest entry of `topic` still held (nil when there is none).
    func latest(
        topic: String, _ completion: @escaping @Sendable (Result<(seq: Int64, json: String)?, JournalError>) -> Void)

    /// `done(true)` once the entry `seq` is applied here (at once if it is), `done(false)` when it cannot
    /// be (within `timeout` seconds).
    func whenApplied(_ seq: Int64, timeout: Double, _ done: @escaping @Sendable (Bool) -> Void)

    /// The newest rows of every topic, newest first, at most `limit` and within `bytes` of JSON: the events
    /// of earlier runs a restarted server puts back in its recent-events buffer (PostgreSQL: up to the start's
    /// snapshot, and none older than an entry written before its todo entries carried `before`). Blocks:
    /// startup only, after `start` and before `follow`.
    func recent(limit: Int, bytes: Int) -> [JournalRow]

    /// Stops following and closes the storage (shutdown).
    func stop()
}

/// A committed input entry.
package struct JournalAppended: Sendable {
    /// Its journal id.
    package var seq: Int64
    /// Answered from the entry of an earlier request with the same key, not committed by this one.
    package var repeated: Bool
    /// That earlier request's JSON when `repeated`.
    package var first: String?
    /// The entry `seq`, committed by this request unless `repeated` (then `first` is its JSON).
    package init(seq: Int64, repeated: Bool = false, first: String? = nil) {
        self.seq = seq
        self.repeated = repeated
        self.first = first
    }
}

/// What the storage held at a journal position: the todos and the journal id they reflect.
package struct JournalSnapshot: Sendable {
    /// Every todo, ordered by id.
    package var todos: [Todo]
    /// The journal id the todos reflect; the server numbers its events that are not journaled after it.
    package var lastSeq: Int64

    /// A snapshot of `todos` at `lastSeq`.
    package init(todos: [Todo], lastSeq: Int64) {
        self.todos = todos
        self.lastSeq = lastSeq
    }
}

/// What one journal entry says, in both journals (the seeds' `Journal` and a data file's `DocumentJournal`):
/// a change to one collection, given as the collection, the item's id and the document after the change.
///
/// - A collection's item: `id` is its id's text, `document` its JSON after the change (nil: deleted). The
///   seeds' todos are one such collection (`todos`, `JournalChange+Todos.swift`), a data file's collections
///   others.
/// - A resource as a whole: `id` is nil and `document` its JSON: a data file's singular resource, one of the
///   seeds' other inputs (its topic and the JSON its server wrote: a selection, a keyword, a refresh, a
///   downloaded image), or a collection's whole list, which an instance that missed entries retention
///   deleted takes instead of them.
///
/// ```swift
/// JournalChange(collection: "posts", id: "1", document: #"{"id":1,"title":"json-server"}"#)   // put
/// JournalChange(collection: "posts", id: "1", document: nil)                                  // delete
/// JournalChange(collection: "selectedImageURL", id: nil, document: #"{"url":"…"}"#)          // an input
/// ```
package struct JournalChange: Sendable, Equatable {
    /// The collection (or resource, or input topic) the change belongs to.
    package var collection: String
    /// The item's id as text; nil for a change to the resource as a whole.
    package var id: String?
    /// The item (or resource) after the change, as JSON; nil when the item was deleted.
    package var document: String?

    /// The change of `collection`'s item `id` to `document` (nil: deleted), or of the whole resource (`id` nil).
    package init(collection: String, id: String?, document: String?) {
        self.collection = collection
        self.id = id
        self.document = document
    }

    /// An input other than a todo write: the resource `topic` becomes `json`.
    package static func input(topic: String, json: String) -> JournalChange {
        JournalChange(collection: topic, id: nil, document: json)
    }
}

/// One committed change and its journal id (event id `seq × 65536`).
package typealias JournalEntry = Committed<JournalChange>

/// What storage did with a todo write it could judge.
package enum TodoWriteOutcome: Sendable, Equatable {
    /// Committed and applied here: the todo as written (nil for a delete, or a repeated delete).
    case committed(Todo?)
    /// No todo has this id: nothing was written.
    case notFound(id: Int)
    /// The list already holds `limit` todos (`--max-todos`): the insert was not written.
    case full(limit: Int)

    /// The todo as committed; nil for a delete and for a write that was not written.
    package var todo: Todo? {
        if case .committed(let todo) = self { todo } else { nil }
    }
}

/// A journal entry as a restart reads it back (`Journal.recent`): the change, and the item before it where
/// the engine keeps it (the seeds' todos: `TodoJournalEntry`).
package struct JournalRow: Sendable, Equatable {
    /// The journal id.
    package var seq: Int64
    /// The change.
    package var change: JournalChange
    /// The item before the change, as JSON; nil when not kept.
    package var before: String?

    /// The entry `seq` of `change`, with the item `before` it.
    package init(seq: Int64, change: JournalChange, before: String? = nil) {
        self.seq = seq
        self.change = change
        self.before = before
    }

    /// `todos`, or the topic of another input.
    package var topic: String { change.collection }
}
