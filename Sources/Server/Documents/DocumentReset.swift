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

    /// The items of `resource` as the batch has them: their id and compact JSON, in order.
    private static func current(_ resource: String, view: DocumentView) -> [(id: DocumentID, bytes: [UInt8])] {
        // NB: stored items are compared by the bytes they keep; only a batch's own changes are encoded again.
        if !view.hasChanges(in: resource), let items = view.store.byName[resource]?.items {
            return items.documents.compactMap { document in document.id.map { ($0, document.bytes) } }
        }
        return view.documents(resource).map { id, object in (id, object.compactBytes) }
    }

    private static func entries(
        for resource: String, to target: [StoredDocument], current: [(id: DocumentID, bytes: [UInt8])]
    ) -> [DocumentStore.Planned] {
        var index: [String: (position: Int, bytes: [UInt8])] = [:]
        index.reserveCapacity(current.count)
        for (position, item) in current.enumerated() { index[item.id.key] = (position, item.bytes) }
        let wanted = Set(target.compactMap { $0.id?.key })
        // The state's items that stay where they are: the longest start of the state the items hold in order.
        var kept = 0
        var last = -1
        for document in target {
            guard let key = document.id?.key, let found = index[key], found.position > last else { break }
            last = found.position
            kept += 1
        }
        let moves = target[kept...].filter { document in document.id.map { index[$0.key] != nil } ?? false }.count
        let keepsOrder = moves <= moveLimit
        var entries: [DocumentStore.Planned] = []
        for item in current where !wanted.contains(item.id.key) {
            entries.append(.init(resource: resource, id: item.id, document: nil))
        }
        for (position, document) in target.enumerated() {
            guard let id = document.id else { continue }
            let held = index[id.key]
            if position >= kept, keepsOrder, held != nil {
                entries.append(.init(resource: resource, id: id, document: nil))
                entries.append(.init(resource: resource, id: id, document: document.object))
            } else if held?.bytes != document.bytes {
                entries.append(.init(resource: resource, id: id, document: document.object))
            }
        }
        return entries
    }
}
