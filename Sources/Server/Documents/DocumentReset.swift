import Domain
import StrictJSON

/// The entries that put one resource back to a state (a reset, a checkpoint's restore): ordinary puts and
/// deletes, planned against the items as the batch has them, so the change is committed, written back and
/// broadcast as any write is, and costs what differs, not the collection's size.
///
/// The collection's order is the state's too. An item keeps its place when it is changed in place, and a
/// put-back item goes to the end (as a `POST`'s), so the items after the first one out of place (deleted
/// since, or moved) are deleted and put again behind it, in the state's order — unless that moves more than
/// `moveLimit` items, where each put-back item goes to the end instead (a collection of tens of thousands
/// of items, whose first item a test deleted, would otherwise be sent again whole).
///
/// ```swift
/// let entries = DocumentReset.entries(for: "posts", to: .collection(saved), view: view)
/// ```
enum DocumentReset {
    /// The state one resource goes back to.
    enum Target: Sendable {
        /// A collection's items, in order.
        case collection([StoredDocument])
        /// A singular resource's object.
        case singular(JSONObject)
    }

    /// The most items a reset deletes and puts again to keep the state's order.
    static let moveLimit = 1_000

    /// The entries that make `resource` hold `target`, given the items as `view` has them.
    static func entries(
        for resource: String, to target: Target, view: DocumentView
    ) -> [DocumentStore.Planned] {
        switch target {
        case .singular(let object):
            guard view.singular(resource).compactBytes != object.compactBytes else { return [] }
            return [.init(resource: resource, id: nil, document: object)]
        case .collection(let documents):
            return entries(for: resource, to: documents, current: current(resource, view: view))
        }
    }

    /// The items of `resource` as the batch has them, in order.
    private static func current(_ resource: String, view: DocumentView) -> [StoredDocument] {
        // NB: the stored items themselves (an item the reset leaves alone is the very object the target holds,
        // compared by reference); only a batch's own changes are made into items again.
        if !view.hasChanges(in: resource), let items = view.store.byName[resource]?.items { return items.documents }
        return view.documents(resource).map { id, object in StoredDocument(id: id, object: object) }
    }

    private static func entries(
        for resource: String, to target: [StoredDocument], current: [StoredDocument]
    ) -> [DocumentStore.Planned] {
        var entries: [DocumentStore.Planned] = []
        // The items both hold at the same places from the start (most of a collection after a test's few
        // writes) are compared in one walk; only what follows the first difference is looked up by id.
        var same = 0
        while same < current.count, same < target.count {
            let held = current[same]
            let wanted = target[same]
            guard held === wanted || (held.id != nil && held.id?.key == wanted.id?.key) else { break }
            if held !== wanted, held.bytes != wanted.bytes, let id = wanted.id {
                entries.append(.init(resource: resource, id: id, document: wanted.object))
            }
            same += 1
        }
        let rest = target[same...]
        var held: [String: (position: Int, document: StoredDocument)] = [:]
        for (position, document) in current[same...].enumerated() {
            if let key = document.id?.key { held[key] = (position, document) }
        }
        var wanted = Set<String>()
        for document in rest { if let key = document.id?.key { wanted.insert(key) } }
        // The rest's items that stay where they are: the longest start of it the items hold in order.
        var kept = 0
        var last = -1
        for document in rest {
            guard let key = document.id?.key, let found = held[key], found.position > last else { break }
            last = found.position
            kept += 1
        }
        let moves = rest.dropFirst(kept).filter { document in document.id.map { held[$0.key] != nil } ?? false }.count
        let keepsOrder = moves <= moveLimit
        for document in current[same...] where !wanted.contains(document.id?.key ?? "") {
            if let id = document.id { entries.append(.init(resource: resource, id: id, document: nil)) }
        }
        for (offset, document) in rest.enumerated() {
            guard let id = document.id else { continue }
            let found = held[id.key]?.document
            if offset >= kept, keepsOrder, found != nil {
                entries.append(.init(resource: resource, id: id, document: nil))
                entries.append(.init(resource: resource, id: id, document: document.object))
            } else if found.map({ $0 !== document && $0.bytes != document.bytes }) ?? true {
                entries.append(.init(resource: resource, id: id, document: document.object))
            }
        }
        return entries
    }
}
