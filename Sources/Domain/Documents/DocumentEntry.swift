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

    /// The entry `seq` of `resource`.
    package init(seq: Int64, resource: String, id: DocumentID?, document: JSONObject?) {
        self.seq = seq
        self.resource = resource
        self.id = id
        self.document = document
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

/// An item with its compact JSON, encoded once when it is stored and shared by every answer and event.
///
/// NB: a class, not a struct: lists of thousands of items are copied, filtered and sorted per request,
/// and a reference is one retain where the item's value (a resilient `JSONObject`) is several.
package final class StoredDocument: Sendable {
    /// The item's id (nil for a singular resource).
    package let id: DocumentID?
    /// The item.
    package let object: JSONObject
    /// `object` as one line of JSON.
    package let bytes: [UInt8]

    /// `object` with its bytes.
    package init(id: DocumentID?, object: JSONObject) {
        self.id = id
        self.object = object
        bytes = object.compactBytes
    }
}

extension StoredDocument: Equatable {
    /// The same item: the same id and the same JSON.
    package static func == (lhs: StoredDocument, rhs: StoredDocument) -> Bool {
        lhs === rhs || (lhs.id == rhs.id && lhs.bytes == rhs.bytes)
    }
}
