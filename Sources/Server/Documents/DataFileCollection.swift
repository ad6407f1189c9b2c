import Domain
import StrictJSON

extension DataFileContent {
    /// An item given a new id at load because an earlier item of its collection had its id.
    struct RenamedID: Sendable, Equatable, CustomStringConvertible {
        /// The collection.
        var resource: String
        /// The item's place in the collection's array (0 first).
        var index: Int
        /// The id it had, as text, and the one it has now.
        var old: String
        var new: String

        var description: String {
            "'\(resource)'[\(index)] had id \(old.prefix(80)), as an earlier item does: it has id \(new) now"
        }
    }

    /// A collection's items stored as they are read, each with an id: ids are given, once all are known, to
    /// those without one and to those whose id an earlier item has (ids compare by their text: `1` and `"1"`
    /// are one id), after the largest integer id, or random when the ids are strings, as a `POST` gives them.
    struct Collection {
        let name: String
        let idField: String
        /// The items in order; nil where an item gets a new id (its object is in `unnumbered`).
        private var documents: [StoredDocument?] = []
        /// The items that get a new id, in order: the object, its place, and the id an earlier item has.
        private var unnumbered: [(object: JSONObject, index: Int, taken: DocumentID?)] = []
        private var largest: Int64 = 0
        private var stringIDs = 0
        /// The items' bytes so far: past `StoredDocument.treeLimit` they are kept without their trees.
        private var itemBytes = 0
        private var seen = DataFileIDs()
        /// What indenting the items adds to their compact JSON in the file (`Resource.indentation`).
        private var indentation = 0

        init(name: String, idField: String) {
            self.name = name
            self.idField = idField
        }

        /// Stores the item `element`, the collection's `index`th.
        mutating func add(_ element: JSONValue, at index: Int) throws(DataFileError) {
            guard case .object(let object) = element else {
                throw DataFileError("'\(name)'[\(index)] is \(element.kindDescription); a collection holds objects")
            }
            // NB: a null id is none: the item gets one, as one without the field does.
            guard let raw = object[idField], raw != .null else {
                documents.append(nil)
                unnumbered.append((object, index, nil))
                return
            }
            guard let id = DocumentID(raw) else {
                throw DataFileError(
                    "'\(name)'[\(index)].\(idField) is \(raw.kindDescription); an id is an integer or a non-empty string"
                )
            }
            // NB: json-server serves a second item with a taken id, but its item routes only reach the first.
            guard seen.insert(id) else {
                documents.append(nil)
                unnumbered.append((object, index, id))
                return
            }
            if case .integer(let number) = raw { largest = max(largest, number) } else { stringIDs += 1 }
            indentation += element.indentationSize(indent: 2, depth: 2)
            store(StoredDocument(id: id, object: object, keepsTree: itemBytes <= StoredDocument.treeLimit))
        }

        /// Stores the item `item` read in bulk (its compact `bytes`), the collection's `index`th; one without
        /// an id of its own, or with an earlier item's, is taken as `add(_:at:)` takes it.
        mutating func add(compact item: CompactItemReader.Item, bytes: [UInt8], at index: Int) throws(DataFileError) {
            let id: DocumentID
            switch item.id {
            case .integer(let number):
                id = DocumentID(.integer(number))!
            case .string(let text):
                id = DocumentID(.string(text))!
            case .none, .other:
                return try add(.object(StoredDocument(id: nil, compact: bytes).object), at: index)
            }
            guard seen.insert(id) else {
                return try add(.object(StoredDocument(id: nil, compact: bytes).object), at: index)
            }
            if case .integer(let number) = item.id { largest = max(largest, number) } else { stringIDs += 1 }
            indentation += item.indentation
            // NB: without its tree: the items of a collection that stays within the limit get theirs at the end.
            store(StoredDocument(id: id, compact: bytes))
        }

        /// Appends `document`; past the limit the collection's items drop their trees.
        private mutating func store(_ document: StoredDocument) {
            let keptTrees = itemBytes <= StoredDocument.treeLimit
            itemBytes += document.bytes.count
            if keptTrees, itemBytes > StoredDocument.treeLimit {
                // This item takes the collection past the limit: it and the items before it drop their trees.
                documents = documents.map { $0?.withoutTree() }
                documents.append(document.withoutTree())
            } else {
                documents.append(document)
            }
        }

        /// The collection as a resource, whether any item was given an id, and those renamed.
        mutating func resource() -> (resource: Resource, assignedIDs: Bool, renamed: [RenamedID]) {
            let finished = finish()
            return (
                Resource(
                    name: name, kind: .collection, documents: finished.documents, indentation: finished.indentation),
                finished.assignedIDs, finished.renamed
            )
        }

        /// The items in order, whether any was given an id, and those renamed.
        private mutating func finish() -> (
            documents: [StoredDocument], assignedIDs: Bool, indentation: Int, renamed: [RenamedID]
        ) {
            if itemBytes <= StoredDocument.treeLimit { documents = documents.map { $0?.withTree() } }
            guard !unnumbered.isEmpty else { return (documents.compactMap { $0 }, false, indentation, []) }
            var result: [StoredDocument] = []
            var renamed: [RenamedID] = []
            result.reserveCapacity(documents.count)
            var next = unnumbered.makeIterator()
            for document in documents {
                if let document {
                    result.append(document)
                    continue
                }
                guard let (object, index, taken) = next.next() else { continue }
                // An item without an id gets one, the way a POST would give it.
                let value: JSONValue
                if stringIDs > 0 && largest == 0 {
                    var id = DocumentID.random()
                    while seen.contains(id) { id = DocumentID.random() }
                    value = id.value
                } else {
                    largest += 1
                    while seen.contains(DocumentID(.integer(largest))!) { largest += 1 }
                    value = .integer(largest)
                }
                let id = DocumentID(value)!
                _ = seen.insert(id)
                if let taken { renamed.append(RenamedID(resource: name, index: index, old: taken.key, new: id.key)) }
                let numbered = DataFileContent.withID(object, idField: idField, value: value)
                indentation += JSONValue.object(numbered).indentationSize(indent: 2, depth: 2)
                result.append(
                    StoredDocument(id: id, object: numbered, keepsTree: itemBytes <= StoredDocument.treeLimit))
            }
            return (result, true, indentation, renamed)
        }
    }
}
