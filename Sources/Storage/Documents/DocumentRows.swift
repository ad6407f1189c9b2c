package import Domain

/// One resource as a journal stores it: its items' id texts and compact JSON, in order.
package struct DocumentRows: Sendable {
    /// The resource's name.
    package var name: String
    /// Collection or singular.
    package var kind: DocumentResource.Kind
    /// The items: id text (`""` for a singular resource) and JSON.
    package var items: [(key: String, body: String)]
    /// Each item's place, as the database orders a collection (ascending), where read from one; else empty.
    package var places: [Int64]
    /// The largest integer id the collection has held, deleted items' included, where the journal keeps it (a
    /// store with no data file, whose collections may number their items past every deleted id); else nil.
    package var largestID: Int64?

    /// A resource's rows.
    package init(
        name: String, kind: DocumentResource.Kind, items: [(key: String, body: String)], places: [Int64] = [],
        largestID: Int64? = nil
    ) {
        self.name = name
        self.kind = kind
        self.items = items
        self.places = places
        self.largestID = largestID
    }
}
