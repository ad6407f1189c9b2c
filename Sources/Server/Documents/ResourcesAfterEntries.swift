import Domain
import Storage
import StrictJSON

/// A data file's resources with journal entries applied on top, in order, as a start puts back the
/// acknowledged changes the file does not show yet (`DataFileService`): page by page, with one lookup per
/// entry whatever the size of its collection (a search of the collection per entry would make a start after a
/// long time without a write-back take time quadratic in its entries).
///
/// ```swift
/// var loaded = ResourcesAfterEntries(content.resources, idField: "id")
/// try loaded.apply(page[...])        // as many times as there are pages
/// let resources = loaded.resources
/// ```
struct ResourcesAfterEntries {
    private var base: [DataFileContent.Resource]
    private let indices: [String: Int]
    private let idField: String
    /// The collections changed so far: their items (nil: deleted, dropped at the end) and each id's position.
    private var collections: [Int: (items: [StoredDocument?], positions: [DocumentID: Int])] = [:]

    /// `resources` with no entry applied; an item's id is read from `idField`.
    init(_ resources: [DataFileContent.Resource], idField: String) {
        base = resources
        indices = Dictionary(resources.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.idField = idField
    }

    /// Applies `entries`, oldest first: an item replaces the one with its id where it is, or goes to the end
    /// of its collection; a delete removes it; an entry of a resource the file does not hold is skipped.
    /// Throws when an entry's item is not an object.
    mutating func apply(_ entries: ArraySlice<JournalEntry>) throws {
        for entry in entries.lazy.map(\.change) {
            guard let index = indices[entry.collection] else { continue }
            let object = try entry.document.map(DataFileService.object)
            if base[index].kind == .singular {
                if let object { base[index].documents = [StoredDocument(id: nil, object: object)] }
                continue
            }
            var collection = collections.removeValue(forKey: index) ?? Self.indexed(base[index].documents)
            let id = DocumentID(pathSegment: entry.id ?? "").withValue(object?[idField])
            if let position = collection.positions[id] {
                collection.items[position] = object.map { StoredDocument(id: id, object: $0) }
                if object == nil { collection.positions[id] = nil }
            } else if let object {
                collection.positions[id] = collection.items.count
                collection.items.append(StoredDocument(id: id, object: object))
            }
            collections[index] = collection
        }
    }

    /// The resources after every entry applied.
    var resources: [DataFileContent.Resource] {
        var result = base
        for (index, collection) in collections { result[index].documents = collection.items.compactMap { $0 } }
        return result
    }

    /// `documents` as a changing collection: each id at its position (the first, should one repeat).
    private static func indexed(_ documents: [StoredDocument]) -> (
        items: [StoredDocument?], positions: [DocumentID: Int]
    ) {
        let ids = documents.enumerated().compactMap { position, item in item.id.map { ($0, position) } }
        return (documents, Dictionary(ids, uniquingKeysWith: { first, _ in first }))
    }
}
