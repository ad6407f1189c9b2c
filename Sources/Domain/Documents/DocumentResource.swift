package import Reactive
package import StrictJSON
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

    /// One applied entry: its id, what it did, and the items after it.
    package struct Applied: Sendable {
        /// The entry's journal id.
        package var seq: Int64
        /// What it did.
        package var change: DocumentChange
        /// The resource's items once it applied.
        package var items: DocumentItems
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
    package var items: DocumentItems { state.withLock { $0 } }

    /// The items as one JSON array (collections) or the object (singular), built at most once per change.
    package var bytes: [UInt8] {
        state.withLock { items in
            if let cached = items.cachedBytes { return cached }
            let bytes = items.encoded(singular: kind == .singular)
            items.cachedBytes = bytes
            return bytes
        }
    }

    private func apply(_ entry: DocumentEntry) {
        let applied: Applied? = state.withLock { items in
            guard let change = items.apply(entry, singular: kind == .singular) else { return nil }
            return Applied(seq: entry.seq, change: change, items: items)
        }
        // NB: sent outside the lock: a subscriber may read `items` or `bytes`.
        if let applied { output.send(applied) }
    }
}

/// The items of a resource, in their order: an ordered map from id to item (or the one object of a
/// singular resource).
package struct DocumentItems: Sendable {
    /// The ids in the collection's order.
    package private(set) var order: [DocumentID] = []
    /// The items by id.
    package private(set) var byID: [DocumentID: StoredDocument] = [:]
    /// The singular resource's object.
    package private(set) var singular: StoredDocument?
    /// The encoded whole, dropped on every change.
    fileprivate var cachedBytes: [UInt8]?

    init(_ documents: [StoredDocument]) {
        order.reserveCapacity(documents.count)
        byID.reserveCapacity(documents.count)
        for document in documents {
            guard let id = document.id else {
                singular = document
                continue
            }
            if byID.updateValue(document, forKey: id) == nil { order.append(id) }
        }
    }

    /// How many items the collection holds.
    package var count: Int { order.count }

    /// The item `id`, or nil.
    package func document(_ id: DocumentID) -> StoredDocument? { byID[id] }

    /// The items in order.
    package var documents: [StoredDocument] { order.map { byID[$0]! } }

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
            guard byID.removeValue(forKey: id) != nil else { return nil }
            if let index = order.firstIndex(of: id) { order.remove(at: index) }
            cachedBytes = nil
            return .deleted(id)
        }
        let stored = StoredDocument(id: id, object: object)
        if let old = byID.updateValue(stored, forKey: id) {
            if old.bytes == stored.bytes { return nil }
            cachedBytes = nil
            return .updated(stored)
        }
        order.append(id)
        cachedBytes = nil
        return .inserted(stored)
    }

    /// The collection as one JSON array of its items' bytes, or the singular object.
    func encoded(singular isSingular: Bool) -> [UInt8] {
        if isSingular { return singular?.bytes ?? Array("{}".utf8) }
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(order.reduce(2) { $0 + (byID[$1]?.bytes.count ?? 0) + 1 })
        for (index, id) in order.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: byID[id]!.bytes)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
