import Dispatch
import Domain
import StrictJSON
import Synchronization

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
        /// The items with an id of their own, in order, filed by it on a queue of their own (`batch` waits
        /// to go there), and once all are: `filed`.
        private let filer = DataFileFiler()
        private var batch: [StoredDocument] = []
        private var filed = DocumentItemsLoad()
        /// The items that get a new id, in order: the object, its place among all the collection's items,
        /// and the id an earlier item has.
        private var unnumbered: [(object: JSONObject, index: Int, taken: DocumentID?)] = []
        private var largest: Int64 = 0
        private var stringIDs = 0
        /// What indenting the items adds to their compact JSON in the file (`Resource.indentation`).
        private var indentation = 0
        /// The items' bytes so far: past `StoredDocument.treeLimit` they are kept without their trees.
        private var itemBytes = 0
        private var seen = DataFileIDs()

        /// How many items go to the filer at once.
        private static let batchSize = 1024

        init(name: String, idField: String) {
            self.name = name
            self.idField = idField
        }

        /// Makes room for `count` items in all (an estimate: room no item takes is given back at the end).
        mutating func expect(_ count: Int) { filer.expect(count) }

        /// Stores the item `element`, the collection's `index`th.
        mutating func add(_ element: JSONValue, at index: Int) throws(DataFileError) {
            guard case .object(let object) = element else {
                throw DataFileError("'\(name)'[\(index)] is \(element.kindDescription); a collection holds objects")
            }
            // NB: a null id is none: the item gets one, as one without the field does.
            guard let raw = object[idField], raw != .null else {
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

        /// Files `document`, whose id no earlier item has, after the others; past the limit the collection's
        /// items drop their trees.
        private mutating func store(_ document: StoredDocument) {
            let keptTrees = itemBytes <= StoredDocument.treeLimit
            itemBytes += document.bytes.count
            batch.append(document)
            if keptTrees, itemBytes > StoredDocument.treeLimit {
                // This item takes the collection past the limit: it and the items before it drop their trees.
                send()
                filer.replaceAll { $0.withoutTree() }
            } else if batch.count >= Self.batchSize {
                send()
            }
        }

        /// Hands the items waiting to the filer.
        private mutating func send() {
            filer.file(batch)
            batch = []
        }

        /// The collection as a resource, whether any item was given an id, and those renamed.
        mutating func resource() -> (resource: Resource, assignedIDs: Bool, renamed: [RenamedID]) {
            let finished = finish()
            var resource = Resource(
                name: name, kind: .collection, documents: finished.documents, indentation: finished.indentation)
            // NB: after `documents`, whose change drops it.
            if !finished.assignedIDs { resource.filed = filed }
            return (resource, finished.assignedIDs, finished.renamed)
        }

        /// The items in order, whether any was given an id, and those renamed.
        private mutating func finish() -> (
            documents: [StoredDocument], assignedIDs: Bool, indentation: Int, renamed: [RenamedID]
        ) {
            send()
            filed = filer.finish()
            filed.trim()
            if itemBytes <= StoredDocument.treeLimit { filed.replace(with: Self.withTrees(filed.documents)) }
            guard !unnumbered.isEmpty else { return (filed.documents, false, indentation, []) }
            var result: [StoredDocument] = []
            var renamed: [RenamedID] = []
            let keepsTrees = itemBytes <= StoredDocument.treeLimit
            result.reserveCapacity(filed.count + unnumbered.count)
            var stored = filed.documents.makeIterator()
            for (object, index, taken) in unnumbered {
                while result.count < index, let document = stored.next() { result.append(document) }
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
                result.append(StoredDocument(id: id, object: numbered, keepsTree: keepsTrees))
            }
            while let document = stored.next() { result.append(document) }
            return (result, true, indentation, renamed)
        }

        /// `documents` with their trees, parsed from their bytes on both cores: a small collection's items
        /// are read without them (tens of thousands of jansson parses at the end of a load).
        private static func withTrees(_ documents: [StoredDocument]) -> [StoredDocument] {
            let halves = Mutex<[Int: [StoredDocument]]>([:])
            let middle = documents.count / 2
            DispatchQueue.concurrentPerform(iterations: 2) { half in
                let part = half == 0 ? documents[..<middle] : documents[middle...]
                let treed = part.map { $0.withTree() }
                halves.withLock { $0[half] = treed }
            }
            return halves.withLock { ($0[0] ?? []) + ($0[1] ?? []) }
        }
    }
}
