/// A collection's items filed by id as a data file's load reads them, one at a time, so that its
/// `DocumentItems` are ready when the read ends (`DocumentItems.init(loaded:indentation:)`).
///
/// NB: filed while each item is fresh in the cache: filing the 463,000 items of a 100 MB file once they
/// were all read took about a fifth of its load, most of it waiting on memory, on one core while the other
/// idled.
///
/// ```swift
/// var load = DocumentItemsLoad()
/// load.append(StoredDocument(id: id, compact: bytes))   // false: an earlier item has its id
/// let items = DocumentItems(loaded: load, indentation: nil)
/// ```
package struct DocumentItemsLoad: Sendable {
    /// The items in order.
    package private(set) var documents: [StoredDocument] = []
    /// The same, as `DocumentItems` holds them (each its slot).
    private(set) var slots: [StoredDocument?] = []
    /// Each item's id → its place.
    private(set) var positions = DocumentPositions()
    /// The sum of the items' JSON sizes.
    package private(set) var itemBytes = 0

    /// No items.
    package init() {}

    /// How many items are filed.
    package var count: Int { documents.count }

    /// Files `document`, which has an id, after the others; false, filing nothing, when it has none or an
    /// earlier item has its id (ids compare by their text: `1` and `"1"` are one id).
    package mutating func append(_ document: StoredDocument) -> Bool {
        guard let id = document.id, positions.insert(id, at: documents.count) == nil else { return false }
        documents.append(document)
        slots.append(document)
        itemBytes += document.bytes.count
        return true
    }

    /// Makes room for `count` items in all, so that the index of ids is not built again as it grows (each
    /// growth of a dictionary files every id again; growing to 463,000 ids cost a 100 MB file's load 0.14 s
    /// of CPU), and the lists of items are not copied as they grow (the copy and the list it is made from are
    /// held at once, at the end of a load, when its memory peaks).
    package mutating func expect(_ count: Int) {
        positions.reserveCapacity(count)
        documents.reserveCapacity(count)
        slots.reserveCapacity(count)
    }

    /// Gives back the room `expect` made and no item took, when it is more than the items take.
    package mutating func trim() {
        positions.trim()
        guard documents.capacity > 2 * documents.count else { return }
        documents = Self.exact(documents)
        slots = Self.exact(slots)
    }

    /// `list` in a buffer of its size.
    private static func exact<Element>(_ list: [Element]) -> [Element] {
        var copy: [Element] = []
        copy.reserveCapacity(list.count)
        copy.append(contentsOf: list)
        return copy
    }

    /// Whether an item with the id `id` is filed.
    package func contains(_ id: DocumentID) -> Bool { positions.slot(of: id) != nil }

    /// Files `replaced` in place of the items, which must be the same items in another form (with or
    /// without their trees): the same ids in the same order, the same bytes.
    package mutating func replace(with replaced: [StoredDocument]) {
        precondition(replaced.count == documents.count, "the same items in another form")
        documents = replaced
        slots = replaced.map(Optional.some)
    }
}
