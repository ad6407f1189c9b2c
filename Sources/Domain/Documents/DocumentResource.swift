package import Reactive
import StrictJSON
import Synchronization

/// The view model of one resource of a user's data file: a collection (`"posts": [...]`) or a singular
/// resource (`"profile": {...}`), as json-server serves it.
///
/// Like the seeds' view models it holds its state and takes its changes through an input: every entry the
/// journal commits is sent into `committed`, in journal order, and the view model's own pipeline applies it
/// and emits what it did on `changes`, which the routes read and `/events` forwards. Nothing else mutates it.
///
/// ```swift
/// let posts = DocumentResource(name: "posts", kind: .collection, documents: loaded)
/// posts.committed.send(DocumentEntry(seq: 7, resource: "posts", id: id, document: post))
/// posts.items.document(id)                  // the post
/// ```
package final class DocumentResource: Sendable {
    /// What kind of value the file holds under the resource's name.
    package enum Kind: String, Sendable {
        /// An array of objects, each with an id.
        case collection
        /// One object.
        case singular
    }

    /// One applied entry: its id, what it did, and the size of the resource's JSON after it.
    ///
    /// NB: not the `Versioned` carrier (id, change, value) the seed view models publish: the value here is
    /// a user's collection, up to the whole data file, kept under the resource's lock and changed in place,
    /// so the emission carries its size (what `/events` decides by) and readers take its cached bytes
    /// (`bytes`) rather than a copy; and an entry applied on catch-up keeps its journal id for the items
    /// (`isJournaled` false) while its event takes a local one, which a nil `seq` could not say.
    package struct Applied: Sendable {
        /// The entry's journal id.
        package var seq: Int64
        /// What it did.
        package var change: DocumentChange
        /// The bytes of the whole list (or object) once it applied, without encoding it.
        package var encodedSize: Int
        /// Whether it is a journal entry (`DocumentEntry.isJournaled`), whose event takes `seq`'s id.
        package var isJournaled = true
    }

    /// The resource's name: its path segment and its `/events` topic.
    package let name: String
    /// Collection or singular.
    package let kind: Kind
    /// Input: each committed entry of this resource, in journal order.
    package let committed = PassthroughSubject<DocumentEntry, Never>()
    /// Output: each entry once applied; an entry that changed nothing (the same bytes again) emits nothing.
    package var changes: AnyPublisher<Applied, Never> { output.eraseToAnyPublisher() }

    private let output = PassthroughSubject<Applied, Never>()
    private let state: Mutex<DocumentItems>
    private let subscription = Mutex<AnyCancellable?>(nil)
    private let encodings = Atomic<Int>(0)

    /// A resource holding `documents` in their order (for a singular resource, one document with no id).
    /// `indentation`: what indenting them adds to their compact JSON in the file, when the reader of the file
    /// summed it from their trees (`JSONValue.indentationSize`); nil: counted from their bytes, a pass over
    /// every byte.
    package convenience init(name: String, kind: Kind, documents: [StoredDocument], indentation: Int? = nil) {
        self.init(name: name, kind: kind, items: DocumentItems(documents, indentation: indentation))
    }

    /// A resource holding `items` (a data file's load files a collection's items as it reads them).
    package init(name: String, kind: Kind, items: DocumentItems) {
        self.name = name
        self.kind = kind
        state = Mutex(items)
        let applying = committed.sink { [weak self] entry in self?.apply(entry) }
        subscription.withLock { $0 = applying }
    }

    /// The items now (a copy-on-write value: holding it costs nothing until the next change).
    package var items: DocumentItems {
        state.withLock { items in
            items.prepareDocuments()
            return items
        }
    }

    /// The bytes the resource takes in the data file as it is written (its name, its items indented): what
    /// a write adds to is weighed against `--max-file-mb`.
    package var fileSize: Int {
        name.utf8.count + 12 + state.withLock { $0.fileSize }
    }

    /// The items now with the journal id of the last entry they show, taken together.
    package var itemsAndSeq: (items: DocumentItems, seq: Int64) {
        state.withLock { items in
            items.prepareDocuments()
            return (items, items.lastSeq)
        }
    }

    /// How many items it holds now (without making the ordered list).
    package var count: Int { state.withLock { $0.count } }

    /// The item `id` now, or nil (without making the ordered list, which a write would drop again).
    package func document(_ id: DocumentID) -> StoredDocument? { state.withLock { $0.document(id) } }

    /// The id text of the item just before `id` now; nil when `id` is first or not held.
    package func key(before id: DocumentID) -> String? { state.withLock { $0.key(before: id) } }

    /// The id text of the last item now; nil when it holds none.
    package var lastKey: String? { state.withLock { $0.lastKey } }

    /// The singular resource's object now.
    package var singular: StoredDocument? { state.withLock { $0.singular } }

    /// The items as one JSON array (collections) or the object (singular), built at most once per change.
    package var bytes: [UInt8] { snapshot.bytes }

    /// The items' JSON, how many items it holds, and the journal id of the last entry it shows (0 before
    /// any), taken together.
    package var snapshot: (bytes: [UInt8], count: Int, seq: Int64) {
        state.withLock { items in
            if let cached = items.cachedBytes { return (cached, items.count, items.lastSeq) }
            let bytes = items.encoded(singular: kind == .singular)
            items.cachedBytes = bytes
            encodings.add(1, ordering: .relaxed)
            return (bytes, items.count, items.lastSeq)
        }
    }

    /// The items' JSON as they stand now (what `bytes` answers now), written only when the function is
    /// called, later and on any thread, appended to the buffer it is given: the bytes at hand when a reader
    /// made them already, else made from the items as they stood (`DocumentItems.Frozen`). So a reader that
    /// may never need the whole (an `/events` event no client reads whole) costs no encoding.
    package var bytesLater: @Sendable (inout [UInt8]) -> Void {
        state.withLock { items in
            if let cached = items.cachedBytes { return { $0.append(contentsOf: cached) } }
            let frozen = items.frozen(singular: kind == .singular)
            return { [self] out in
                encodings.add(1, ordering: .relaxed)
                frozen.write(into: &out)
            }
        }
    }

    /// How many times the whole JSON was encoded (`snapshot`, or a `bytesLater` called): an encoding that
    /// no reader asked for shows in it (tests).
    package var encodingCount: Int { encodings.load(ordering: .relaxed) }

    /// The items whose value at `path` reads as one of `texts` (JavaScript's `String(value)`; null and
    /// missing never), in the collection's order: an equality filter answered from an index of that field,
    /// built on first use and kept in step with every write (at most `maxIndexes` fields at once).
    ///
    /// NB: the first use builds the index under the items' lock; on a collection whose items keep no tree
    /// (`keepsTrees` false) that parses every item, so the server calls `buildIndex` first, off its loops.
    package func documents(whereValueAt path: [String], isOneOf texts: [String]) -> [StoredDocument] {
        state.withLock { items in items.documents(whereValueAt: path, isOneOf: texts) }
    }

    /// `documents(whereValueAt:isOneOf:)` with the journal id of the last entry they show, taken together.
    package func documentsAndSeq(whereValueAt path: [String], isOneOf texts: [String]) -> ([StoredDocument], Int64) {
        state.withLock { items in (items.documents(whereValueAt: path, isOneOf: texts), items.lastSeq) }
    }

    /// How many items `documents(whereValueAt:isOneOf:)` answers, from the field's index (nil when none is
    /// built yet), without taking them (on 100,000 items in a debug build, taking 60,000 costs 10-15 ms).
    package func count(whereValueAt path: [String], isOneOf texts: [String]) -> Int? {
        state.withLock { items in items.count(whereValueAt: path, isOneOf: texts) }
    }

    /// Whether the first equality filter on `path` would cost a pass that parses every item: the collection
    /// is large (its items keep their bytes alone) and has no index of that field yet.
    package func needsIndexBuild(at path: [String]) -> Bool {
        state.withLock { !$0.keepsTrees && !$0.hasIndex(at: path) }
    }

    /// Builds the index of the field at `path` without holding the items' lock, so reads and writes of the
    /// collection go on meanwhile: the items as they were when it started are indexed, then the slots
    /// written since are filed again under the lock. An index built across a renumbering of the slots (many
    /// deletes) is dropped; the next filter builds it under the lock.
    package func buildIndex(at path: [String]) {
        let start = state.withLock { $0.beginIndexBuild(at: path) }
        guard let start else { return }
        let built = DocumentItems.index(of: start.slots, at: path)
        state.withLock { $0.finishIndexBuild(start, built: built) }
    }

    private func apply(_ entry: DocumentEntry) {
        let applied: Applied? = state.withLock { items in
            guard let change = items.apply(entry, singular: kind == .singular) else { return nil }
            items.lastSeq = entry.seq
            return Applied(
                seq: entry.seq, change: change, encodedSize: items.encodedSize(singular: kind == .singular),
                isJournaled: entry.isJournaled)
        }
        // NB: sent outside the lock: a subscriber may read `items` or `bytes`.
        if let applied { output.send(applied) }
    }
}
