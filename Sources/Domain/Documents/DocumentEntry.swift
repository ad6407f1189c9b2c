package import StrictJSON

/// One committed change of a data file's resource, as the journal holds it: the resource, the item's id
/// (none for a singular resource) and the item after the change (nil: deleted).
///
/// ```swift
/// DocumentEntry(seq: 42, resource: "posts", id: DocumentID(.integer(1)), document: post)   // put
/// DocumentEntry(seq: 43, resource: "posts", id: DocumentID(.integer(1)), document: nil)    // delete
/// ```
package struct DocumentEntry: Sendable, Equatable {
    /// The journal id: commit order.
    package var seq: Int64
    /// The resource's name.
    package var resource: String
    /// The item's id; nil for a singular resource.
    package var id: DocumentID?
    /// The whole item after the change; nil when it was deleted.
    package var document: JSONObject?
    /// False for a change a server makes to catch up with its database, not one of the journal's entries
    /// (a server that missed entries retention deleted takes the items as they are): its event takes an id
    /// of that server's own, after `seq`'s.
    package var isJournaled: Bool

    /// The entry `seq` of `resource` (or, not `isJournaled`, a catch-up change at `seq`).
    package init(seq: Int64, resource: String, id: DocumentID?, document: JSONObject?, isJournaled: Bool = true) {
        self.seq = seq
        self.resource = resource
        self.id = id
        self.document = document
        self.isJournaled = isJournaled
    }
}

/// What applying one entry did to its resource's items.
package enum DocumentChange: Sendable {
    /// A new item, at the end of the collection.
    case inserted(StoredDocument)
    /// An item replaced in place (or the singular resource's new value).
    case updated(StoredDocument)
    /// An item removed.
    case deleted(DocumentID)
}

/// An item as its compact JSON, encoded once when it is stored and shared by every answer and event, and
/// its members while its collection is small.
///
/// NB: a large collection's items are kept as their bytes alone: a data file of hundreds of thousands of
/// items kept as trees of `JSONValue` as well cost about 4× the file's size in memory (docs/benchmarks.md,
/// own data), the bytes alone about 2×. Such an item's `object` parses its bytes again (jansson, several
/// µs for a 150-byte item), so the paths that visit many items answer from the item's id and the
/// collection's field indexes instead. A collection of at most `treeLimit` bytes of JSON keeps its items'
/// trees too, so that a query that reads every item (`q`, `_like`, `_sort` by a field) stays within its
/// work budget as it did on files of tens of thousands of items. The bytes round-trip but for one thing:
/// a real that JavaScript writes without a fraction (`1.0` is written `1`) reads back as an integer, as it
/// does when json-server reads its own file again.
///
/// NB: a class, not a struct: lists of thousands of items are copied, filtered and sorted per request,
/// and a reference is one retain.
package final class StoredDocument: Sendable {
    /// The most bytes of JSON a collection holds while its items keep their trees beside their bytes.
    package static let treeLimit = 16 << 20

    /// The item's id (nil for a singular resource).
    package let id: DocumentID?
    /// The item as one line of JSON (`JSONObject.compactBytes`).
    package let bytes: [UInt8]
    /// The item's members when kept, else nil (`object` parses `bytes`).
    ///
    /// NB: boxed: a `JSONObject` held here took 16 bytes of every item (an array and an optional index),
    /// which made each item of a large collection, kept without its tree, a 96-byte allocation instead of 80.
    private let tree: Tree?

    /// An item's members, kept beside its bytes.
    private final class Tree: Sendable {
        let object: JSONObject
        init(_ object: JSONObject) { self.object = object }
    }

    /// `object` stored as its bytes, and as its members too when `keepsTree`.
    package init(id: DocumentID?, object: JSONObject, keepsTree: Bool = true) {
        self.id = id
        // NB: the writer's buffer grows by doubling (a 155-byte item sat in 256 bytes, 40 % of a 100 MB
        // file's memory): the stored bytes are a copy in a buffer of their size.
        let written = object.compactBytes
        var exact: [UInt8] = []
        exact.reserveCapacity(written.count)
        exact.append(contentsOf: written)
        bytes = exact
        tree = keepsTree ? Tree(object) : nil
    }

    /// An item stored as `bytes`, which must be what `compactBytes` writes for an object (a data file's item
    /// read in bulk, `CompactItemReader`), without its members.
    package init(id: DocumentID?, compact bytes: [UInt8]) {
        self.id = id
        self.bytes = bytes
        tree = nil
    }

    private init(id: DocumentID?, bytes: [UInt8], tree: JSONObject) {
        self.id = id
        self.bytes = bytes
        self.tree = Tree(tree)
    }

    /// The same item kept as its bytes alone.
    package func withoutTree() -> StoredDocument { tree == nil ? self : StoredDocument(id: id, compact: bytes) }

    /// The same item with its members kept beside its bytes (parsed from them when it had none).
    package func withTree() -> StoredDocument {
        tree != nil ? self : StoredDocument(id: id, bytes: bytes, tree: object)
    }

    /// The item: its kept members, or its bytes parsed (see the type's note on the cost).
    package var object: JSONObject {
        if let tree { return tree.object }
        // Invariant: `bytes` is the writer's compact JSON of an object, which jansson reads back. NB: read as
        // one value of a text, without `init(parsing:)`'s look for NUL bytes and its marker for a number
        // out of range (two `getrandom` calls a parse), which the writer's own bytes cannot hold.
        guard case .object(let object) = try? JSONValue.parsing(bytes, from: 0).value else {
            preconditionFailure("a stored item's bytes are its own compact JSON, which parses")
        }
        return object
    }
}

extension StoredDocument: Equatable {
    /// The same item: the same id and the same JSON.
    package static func == (lhs: StoredDocument, rhs: StoredDocument) -> Bool {
        lhs === rhs || (lhs.id == rhs.id && lhs.bytes == rhs.bytes)
    }
}
