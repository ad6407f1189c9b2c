import Domain
import HTTP
import Synchronization

/// A large collection's string values as one searchable text (`DocumentSearchText`), kept while the
/// collection is unchanged: what `q` on 100,000 items answers from within the work budget, as json-server
/// answers it.
///
/// The first search of a collection as it is now makes it on a worker, off the loop (it reads every item), as
/// a sort index is built; a write makes it stale, and the next search makes it again. One per collection
/// route.
final class DocumentSearchIndex: Sendable {
    /// Collections smaller than this are searched item by item, within the budget.
    static let threshold = DocumentSortIndex.threshold

    private struct Kept: Sendable {
        var seq: Int64
        var documents: [StoredDocument]
        var text: DocumentSearchText
    }

    private let kept = Mutex<Kept?>(nil)

    /// Whether `query` on `resource` searches enough items to want the text (not when an equality filter
    /// narrows the items through a field's index first, nor for a search text it does not answer).
    static func wanted(_ query: DocumentQuery, on resource: DocumentResource, narrowed: Bool) -> Bool {
        !narrowed && resource.items.count >= threshold && DocumentSearchText.answers(query)
    }

    /// Making the text when it is not kept for the collection as it is now.
    func missingBuild(on resource: DocumentResource) -> (@Sendable () -> Void)? {
        guard current(resource) == nil else { return nil }
        return { self.build(on: resource) }
    }

    /// The items of `resource` that pass `query`'s search, in order, within `meter`'s budget; nil when the
    /// text is not kept for the collection as it is now (the query then searches item by item).
    func search(_ query: DocumentQuery, on resource: DocumentResource, meter: inout ListQuery.Meter)
        throws(HTTPError) -> [StoredDocument]?
    {
        guard let kept = current(resource) else { return nil }
        let documents = kept.documents
        let places = try kept.text.search(query, meter: &meter) { place in
            query.searchMatches(documents[place].object)
        }
        return places?.map { documents[$0] }
    }

    /// `search` as a query's answer asks for it (`DocumentQuery.apply`'s `searched`).
    func searching(_ query: DocumentQuery, on resource: DocumentResource) -> (inout ListQuery.Meter) throws(HTTPError)
        -> [StoredDocument]?
    {
        { meter throws(HTTPError) in try self.search(query, on: resource, meter: &meter) }
    }

    /// Makes the text of the collection as it is now, and keeps it.
    func build(on resource: DocumentResource) {
        let (items, seq) = resource.itemsAndSeq
        let documents = items.documents
        let text = DocumentSearchText(objects: documents.lazy.map(\.object))
        kept.withLock { $0 = Kept(seq: seq, documents: documents, text: text) }
    }

    private func current(_ resource: DocumentResource) -> Kept? {
        let seq = resource.itemsAndSeq.seq
        return kept.withLock { kept in
            guard let held = kept, held.seq == seq else {
                // A stale text is dropped at once: it holds the strings of every item of an older state.
                kept = nil
                return nil
            }
            return held
        }
    }
}
