package import Domain

/// What one journal entry says, in the one storage protocol of both engines (`DocumentJournal`):
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

/// A journal entry as a restart reads it back (the seeds' store's `recent`): the change, and the item before
/// it where the engine keeps it.
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
