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

    /// A resource holding `documents` in their order (for a singular resource, one document with no id).
    package init(name: String, kind: Kind, documents: [StoredDocument]) {
        self.name = name
        self.kind = kind
        state = Mutex(DocumentItems(documents))
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

    /// The items now with the journal id of the last entry they show, taken together.
    package var itemsAndSeq: (items: DocumentItems, seq: Int64) {
        state.withLock { items in
            items.prepareDocuments()
            return (items, items.lastSeq)
        }
    }

    /// The item `id` now, or nil (without making the ordered list, which a write would drop again).
    package func document(_ id: DocumentID) -> StoredDocument? { state.withLock { $0.document(id) } }

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
            return (bytes, items.count, items.lastSeq)
        }
    }

    /// The items whose value at `path` reads as one of `texts` (JavaScript's `String(value)`; null and
    /// missing never), in the collection's order: an equality filter answered from an index of that field,
    /// built on first use and kept in step with every write (at most `maxIndexes` fields at once).
    package func documents(whereValueAt path: [String], isOneOf texts: [String]) -> [StoredDocument] {
        state.withLock { items in items.documents(whereValueAt: path, isOneOf: texts) }
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

/// The items of a resource, in their order: slots in the collection's order (a deleted item leaves an
/// empty slot until half of them are empty), an index from id text to slot, or the one object of a
/// singular resource.
package struct DocumentItems: Sendable {
    private var slots: [StoredDocument?] = []
    private var positions: [String: Int] = [:]
    /// The singular resource's object.
    package private(set) var singular: StoredDocument?
    /// The encoded whole, dropped on every change.
    fileprivate var cachedBytes: [UInt8]?
    /// The items in order, made once per change.
    private var cachedDocuments: [StoredDocument]?
    /// Per field path: each value's text → the slots holding it, in order; kept in step with each write
    /// (`reindex`), dropped when the slots are renumbered.
    /// NB: keyed by the path's keys, not their text joined by ".": `["a.b"]` and `["a", "b"]` are two fields.
    private var indexes: [[String]: [String: [Int]]] = [:]
    /// The most field indexes kept at once (each is as large as the collection's index of ids).
    static let maxIndexes = 4
    /// The journal id of the last entry applied.
    fileprivate var lastSeq: Int64 = 0
    /// The sum of the items' JSON sizes, kept with every change.
    private var itemBytes = 0

    init(_ documents: [StoredDocument]) {
        slots.reserveCapacity(documents.count)
        positions.reserveCapacity(documents.count)
        for document in documents {
            guard let id = document.id else {
                singular = document
                continue
            }
            if let slot = positions[id.key] {
                itemBytes -= slots[slot]?.bytes.count ?? 0
                slots[slot] = document
            } else {
                positions[id.key] = slots.count
                slots.append(document)
            }
            itemBytes += document.bytes.count
        }
        cachedDocuments = slots.compactMap { $0 }
    }

    /// The size of the whole list's JSON (or the object's), without encoding it.
    func encodedSize(singular isSingular: Bool) -> Int {
        isSingular ? (singular?.bytes.count ?? 2) : 2 + itemBytes + max(0, positions.count - 1)
    }

    /// How many items the collection holds.
    package var count: Int { positions.count }

    /// The item `id`, or nil.
    package func document(_ id: DocumentID) -> StoredDocument? { positions[id.key].flatMap { slots[$0] } }

    /// The items in order.
    package var documents: [StoredDocument] { cachedDocuments ?? slots.compactMap { $0 } }

    /// Applies `entry`; nil when it changed nothing.
    mutating func apply(_ entry: DocumentEntry, singular isSingular: Bool) -> DocumentChange? {
        if isSingular {
            guard let object = entry.document else { return nil }
            let stored = StoredDocument(id: nil, object: object)
            if stored.bytes == singular?.bytes { return nil }
            singular = stored
            cachedBytes = nil
            return .updated(stored)
        }
        guard let id = entry.id else { return nil }
        guard let object = entry.document else {
            guard let slot = positions.removeValue(forKey: id.key), let old = slots[slot] else { return nil }
            itemBytes -= old.bytes.count
            slots[slot] = nil
            changed()
            if slots.count > 32, positions.count < slots.count / 2 { compact() }
            return .deleted(old.id ?? id)
        }
        if let slot = positions[id.key], let old = slots[slot] {
            // NB: the id as the item holds it (a path's `1` may name the item whose id is `"1"`), so that an
            // item's `id.value` stays the value of its id field, which a sort by id reads instead of parsing.
            let stored = StoredDocument(id: old.id ?? id, object: object, keepsTree: keepsTrees)
            if old.bytes == stored.bytes { return nil }
            itemBytes += stored.bytes.count - old.bytes.count
            slots[slot] = stored
            changed()
            reindex(slot, from: old, to: stored)
            return .updated(stored)
        }
        let stored = StoredDocument(id: id, object: object, keepsTree: keepsTrees)
        positions[id.key] = slots.count
        slots.append(stored)
        itemBytes += stored.bytes.count
        changed()
        reindex(slots.count - 1, from: nil, to: stored)
        return .inserted(stored)
    }

    /// Whether a new item keeps its tree (`StoredDocument.treeLimit`).
    private var keepsTrees: Bool { itemBytes <= StoredDocument.treeLimit }

    private mutating func changed() {
        cachedBytes = nil
        cachedDocuments = nil
    }

    /// Files the item now in `slot` (in place of `old`) in the field indexes, so that a write costs a parse
    /// of the item or two, not a parse of every item at the next filtered read. A deleted item's slot stays
    /// filed: its slot is empty, which a lookup skips, and slots are renumbered only by `compact`.
    private mutating func reindex(_ slot: Int, from old: StoredDocument?, to new: StoredDocument) {
        guard !indexes.isEmpty else { return }
        let oldObject = old?.object
        let newObject = new.object
        for path in Array(indexes.keys) {
            let oldText = oldObject.flatMap { Self.indexedText(of: $0, at: path) }
            let newText = Self.indexedText(of: newObject, at: path)
            if old != nil, oldText == newText { continue }
            if let oldText, var filed = indexes[path]?[oldText] {
                let position = Self.position(of: slot, in: filed)
                if position < filed.count, filed[position] == slot { filed.remove(at: position) }
                indexes[path]?[oldText] = filed.isEmpty ? nil : filed
            }
            if let newText {
                var filed = indexes[path]?[newText] ?? []
                filed.insert(slot, at: Self.position(of: slot, in: filed))
                indexes[path]?[newText] = filed
            }
        }
    }

    /// The text an index files `object` under for `path` (JavaScript's `String(value)`); nil for null or a
    /// missing value, which no equality filter matches.
    private static func indexedText(of object: JSONObject, at path: [String]) -> String? {
        guard let value = object.value(at: path), value != .null else { return nil }
        return value.javaScriptString
    }

    /// Where `slot` is, or goes, in the ascending `slots`.
    private static func position(of slot: Int, in slots: [Int]) -> Int {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle] < slot { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// See `DocumentResource.documents(whereValueAt:isOneOf:)`.
    fileprivate mutating func documents(whereValueAt path: [String], isOneOf texts: [String]) -> [StoredDocument] {
        if indexes[path] == nil {
            if indexes.count >= Self.maxIndexes { indexes.removeAll() }
            var index: [String: [Int]] = [:]
            for (slot, document) in slots.enumerated() {
                guard let object = document?.object, let text = Self.indexedText(of: object, at: path) else { continue }
                index[text, default: []].append(slot)
            }
            indexes[path] = index
        }
        let index = indexes[path] ?? [:]
        var found: [Int] = []
        for text in Set(texts) { found.append(contentsOf: index[text] ?? []) }
        if texts.count > 1 { found.sort() }
        return found.compactMap { slots[$0] }
    }

    /// Drops the empty slots (after many deletes), renumbering the index.
    private mutating func compact() {
        slots = slots.compactMap { $0 }
        indexes.removeAll()
        positions.removeAll(keepingCapacity: true)
        for (slot, document) in slots.enumerated() {
            if let key = document?.id?.key { positions[key] = slot }
        }
    }

    /// Makes the ordered list for readers until the next change (called under the view model's lock).
    fileprivate mutating func prepareDocuments() {
        if cachedDocuments == nil { cachedDocuments = slots.compactMap { $0 } }
    }

    /// The collection as one JSON array of its items' bytes, or the singular object.
    func encoded(singular isSingular: Bool) -> [UInt8] {
        if isSingular { return singular?.bytes ?? Array("{}".utf8) }
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(encodedSize(singular: false))
        var first = true
        for case let document? in slots {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: document.bytes)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
