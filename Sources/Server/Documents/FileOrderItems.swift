import Domain
import Storage
import StrictJSON

/// A data file's resource as a restart's rewind (`DocumentRewind`) takes it back, in the file's own order: a new
/// item went to the end of its collection, a changed one kept its place, and a delete's item before names the
/// item then before it (`ItemBefore`, as `DocumentView.itemBefore` gives its SQLite journal).
///
/// A collection is taken apart into a list of ids, each linked to its neighbours, which an undo changes in place;
/// a singular resource is its object.
///
/// ```swift
/// let rewind = DocumentRewind(resources, recent: try journal.recent(limit: 1024, bytes: 1 << 25), count: 1024,
///                             idField: "id")
/// // serve rewind.resources, then send rewind.entries (oldest first) into the view models
/// ```
struct FileOrderItems: RewindItems {
    private var items: [String: StoredDocument] = [:]
    private var next: [String: String] = [:]
    private var previous: [String: String] = [:]
    private var first: String?
    private var last: String?
    /// A singular resource's object (nil: a collection, or a singular resource without one).
    private var object: StoredDocument?
    private let singular: Bool
    private let idField: String

    /// `resource`'s items; an item's id is read from `idField`.
    init(_ resource: DataFileContent.Resource, idField: String) {
        self.idField = idField
        singular = resource.kind == .singular
        if singular {
            object = resource.documents.first
            return
        }
        items.reserveCapacity(resource.documents.count)
        for document in resource.documents {
            guard let key = document.id?.key, items.updateValue(document, forKey: key) == nil else { continue }
            if let last {
                next[last] = key
                previous[key] = last
            } else {
                first = key
            }
            last = key
        }
    }

    static func name(of resource: DataFileContent.Resource) -> String { resource.name }

    mutating func undo(_ key: String?, now: String?, before: ItemBefore) -> Bool {
        let now = now.map { Array($0.utf8) }
        guard let key else {
            guard singular, object?.bytes == now, case .inPlace(let body) = before,
                let object = try? DataFileService.object(body)
            else { return false }
            self.object = StoredDocument(id: nil, object: object)
            return true
        }
        guard !singular, items[key]?.bytes == now else { return false }
        switch before {
        case .none:
            // A delete of no item changed nothing.
            guard now != nil else { return true }
            // A new item went to the end, and every later entry is undone: it is the last.
            guard last == key else { return false }
            remove(key)
        case .inPlace(let body):
            guard now != nil, let document = document(key, body) else { return false }
            items[key] = document
        case .deleted(let body, let after):
            let before: String?
            if let after {
                guard case .string(let id)? = try? JSONValue(parsing: Array(after.utf8), maxDepth: 1), items[id] != nil
                else { return false }
                before = id
            } else {
                before = nil
            }
            guard now == nil, let document = document(key, body) else { return false }
            insert(key, document, after: before)
        case .placed:
            return false
        }
        return true
    }

    func replacingItems(of resource: DataFileContent.Resource) -> DataFileContent.Resource {
        var result = resource
        if singular {
            result.documents = object.map { [$0] } ?? []
        } else {
            var documents: [StoredDocument] = []
            documents.reserveCapacity(items.count)
            var at = first
            while let key = at, let document = items[key] {
                documents.append(document)
                at = next[key]
            }
            result.documents = documents
        }
        result.indentation = nil
        return result
    }

    private mutating func remove(_ key: String) {
        let (before, after) = (previous.removeValue(forKey: key), next.removeValue(forKey: key))
        if let before { next[before] = after } else { first = after }
        if let after { previous[after] = before } else { last = before }
        items[key] = nil
    }

    private mutating func insert(_ key: String, _ document: StoredDocument, after before: String?) {
        let after = before.map { next[$0] } ?? first
        previous[key] = before
        next[key] = after
        if let before { next[before] = key } else { first = key }
        if let after { previous[after] = key } else { last = key }
        items[key] = document
    }

    private func document(_ key: String, _ body: String) -> StoredDocument? {
        guard let object = try? DataFileService.object(body) else { return nil }
        return StoredDocument(id: DocumentID(pathSegment: key).withValue(object[idField]), object: object)
    }
}

extension DocumentRewind where Items == FileOrderItems {
    /// A data file's `resources` taken back before as many of `recent` (newest first) as can be undone exactly,
    /// at most `count`; an item's id is read from `idField`.
    init(_ resources: [DataFileContent.Resource], recent: [JournalRow], count: Int, idField: String) {
        self.init(resources, recent: recent, count: count) { FileOrderItems($0, idField: idField) }
    }
}
