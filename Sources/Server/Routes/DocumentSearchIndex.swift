import Domain
import HTTP
import Synchronization

/// A large collection's string values as one searchable text (`DocumentSearchText`), kept while the
/// collection is unchanged: what `q` on 100,000 items answers from within the work budget, as json-server
/// answers it.
///
/// The first search of a collection makes it on a worker, off the loop (from the items' bytes, in C: about
/// 0.1 s for 100,000 items in a debug build), as a sort index is built. After a write the next search answers at
/// once from the text of the earlier state and the items changed, added or removed since (`DocumentIndexOverlay`),
/// and the text for now is made on a worker from the earlier one and the items written since (`build`); past
/// `DocumentIndexOverlay.limit` changes the search waits for that, a few ms plus the written items' text. One
/// per collection route.
final class DocumentSearchIndex: Sendable {
    /// Collections smaller than this are searched item by item, within the budget.
    static let threshold = DocumentSortIndex.threshold

    private struct Kept: Sendable {
        var seq: Int64
        var documents: [StoredDocument]
        var text: DocumentSearchText
    }

    private struct State {
        var text: Kept?
        /// The overlay of `text` (of the state `of`) for the state `now`.
        var overlay: (of: Int64, now: Int64, overlay: DocumentIndexOverlay)?
        var rebuilding = false
    }

    private let kept = Mutex(State())
    private let workers: WorkerPool

    init(workers: WorkerPool) {
        self.workers = workers
    }

    /// Whether `query` on `resource` searches enough items to want the text (not when an equality filter
    /// narrows the items through a field's index first, nor for a search text it does not answer).
    static func wanted(_ query: DocumentQuery, on resource: DocumentResource, narrowed: Bool) -> Bool {
        !narrowed && resource.items.count >= threshold && DocumentSearchText.answers(query)
    }

    /// Making the text when neither it nor an overlay of an earlier one is kept for the collection as it is now.
    func missingBuild(on resource: DocumentResource) -> (@Sendable () -> Void)? {
        guard usable(resource) == nil else { return nil }
        return { self.build(on: resource) }
    }

    /// The items of `resource` that pass `query`'s search, in order, within `meter`'s budget; nil when no text
    /// is kept for the collection as it is now, nor an overlay of an earlier one (the query then searches item
    /// by item).
    func search(_ query: DocumentQuery, on resource: DocumentResource, meter: inout ListQuery.Meter)
        throws(HTTPError) -> [StoredDocument]?
    {
        guard let (documents, places) = try places(query, on: resource, meter: &meter) else { return nil }
        return places.map { documents[$0] }
    }

    /// The places in the collection as it is now (`documents`) of the items that pass `query`'s search, in
    /// order, within `meter`'s budget; nil as for `search`. What a field's text or a range intersects with.
    func places(_ query: DocumentQuery, on resource: DocumentResource, meter: inout ListQuery.Meter)
        throws(HTTPError) -> (documents: [StoredDocument], places: [Int])?
    {
        guard let (kept, overlay) = usable(resource) else { return nil }
        let documents = kept.documents
        guard
            let places = try kept.text.search(
                query, meter: &meter,
                undecided: { place in
                    query.searchMatches(documents[place].object)
                })
        else { return nil }
        guard let overlay else { return (documents, places) }
        var added: [Int] = []
        for place in overlay.changed {
            try meter.check()
            if query.searchMatches(overlay.documents[place].object) { added.append(place) }
        }
        // NB: the text's items still there unchanged, and the changed ones that pass, merged in order.
        var found: [Int] = []
        var next = 0
        for place in overlay.surviving(places) {
            while next < added.count && added[next] < place {
                found.append(added[next])
                next += 1
            }
            found.append(place)
        }
        found.append(contentsOf: added[next...])
        return (overlay.documents, found)
    }

    /// `search` as a query's answer asks for it (`DocumentQuery.apply`'s `searched`).
    func searching(_ query: DocumentQuery, on resource: DocumentResource) -> (inout ListQuery.Meter) throws(HTTPError)
        -> [StoredDocument]?
    {
        { meter throws(HTTPError) in try self.search(query, on: resource, meter: &meter) }
    }

    /// `places` as a field's text asks for it (`DocumentFieldIndex.answer`'s `searched`).
    func placing(_ query: DocumentQuery, on resource: DocumentResource) -> DocumentFieldIndex.Searched {
        { meter throws(HTTPError) in try self.places(query, on: resource, meter: &meter) }
    }

    /// The most items written since the kept text's state that a text for now is made from it (and a text of
    /// those items) rather than from every item.
    static let updateLimit = DocumentSortIndex.changesLimit

    /// Makes the text of the collection as it is now, and keeps it (unless one of a later state is kept): from
    /// the kept text of an earlier state and the items written since (`DocumentChangeLog`) when they are at
    /// most `updateLimit`, copying the kept items' lines (a few ms for 100,000 items in a debug build, where
    /// reading every item again cost 0.1-0.2 s of CPU); else from every item.
    func build(on resource: DocumentResource) {
        let (items, seq) = resource.itemsAndSeq
        let held = kept.withLock { $0.text }
        if let held, held.seq >= seq { return }
        let documents = items.documents
        let text =
            held.flatMap { held in
                DocumentIndexOverlay(kept: held.documents, keptSeq: held.seq, now: items, limit: Self.updateLimit)
                    .flatMap { Self.updated(held.text, by: $0) }
            } ?? DocumentSearchText(compact: documents.map(\.bytes))
        kept.withLock { state in
            guard (state.text?.seq ?? .min) < seq else { return }
            state.text = Kept(seq: seq, documents: documents, text: text)
            state.overlay = nil
        }
    }

    /// The text of `overlay.documents` made from `text`, of the items the overlay is of: the lines of the items
    /// still there unchanged copied in runs, and between them the lines of the changed and added items, made
    /// from their bytes. Nil when the overlay does not fit the text.
    static func updated(_ text: DocumentSearchText, by overlay: DocumentIndexOverlay) -> DocumentSearchText? {
        guard text.count == overlay.keptCount else { return nil }
        let fresh = DocumentSearchText(compact: overlay.changed.map { overlay.documents[$0].bytes })
        let excluded = (overlay.removed + overlay.replaced.compactMap { $0 }).sorted()
        var parts: [(text: DocumentSearchText, range: Range<Int>)] = []
        var (keptPlace, nextExcluded, filled) = (0, 0, 0)
        // NB: the text's items not excluded, in order, until `filled` reaches `place` (the next changed item's
        // place now); false when the text runs out first.
        func fill(to place: Int) -> Bool {
            while filled < place {
                while nextExcluded < excluded.count && excluded[nextExcluded] == keptPlace {
                    keptPlace += 1
                    nextExcluded += 1
                }
                let runEnd = min(
                    nextExcluded < excluded.count ? excluded[nextExcluded] : text.count, keptPlace + place - filled)
                guard runEnd > keptPlace else { return false }
                parts.append((text, keptPlace..<runEnd))
                filled += runEnd - keptPlace
                keptPlace = runEnd
            }
            return true
        }
        // NB: changed items next to each other now take one part of the fresh text.
        var freshPart: Int?
        for (index, place) in overlay.changed.enumerated() {
            let before = parts.count
            guard fill(to: place) else { return nil }
            if parts.count == before, let part = freshPart {
                parts[part].range = parts[part].range.lowerBound..<(index + 1)
            } else {
                freshPart = parts.count
                parts.append((fresh, index..<(index + 1)))
            }
            filled += 1
        }
        guard fill(to: overlay.documents.count) else { return nil }
        return DocumentSearchText(joining: parts)
    }

    /// The kept text, and its overlay for the collection as it is now when it is of an earlier state (whose
    /// text for now it then starts making on a worker); nil when none is kept, or the kept one is too far from
    /// now (it is kept until `build` replaces it: the text for now is made from it when the change log holds the
    /// writes since).
    private func usable(_ resource: DocumentResource) -> (Kept, DocumentIndexOverlay?)? {
        let (items, seq) = resource.itemsAndSeq
        let (held, cached) = kept.withLock { state in
            (state.text, state.overlay.flatMap { $0.of == state.text?.seq && $0.now == seq ? $0.overlay : nil })
        }
        guard let held else { return nil }
        if held.seq == seq { return (held, nil) }
        if let cached { return (held, cached) }
        guard let overlay = DocumentIndexOverlay(kept: held.documents, keptSeq: held.seq, now: items) else {
            return nil
        }
        let start = kept.withLock { state in
            state.overlay = (held.seq, seq, overlay)
            defer { state.rebuilding = true }
            return !state.rebuilding
        }
        if start, !workers.submit({ self.rebuilt(on: resource) }) { kept.withLock { $0.rebuilding = false } }
        return (held, overlay)
    }

    private func rebuilt(on resource: DocumentResource) {
        build(on: resource)
        kept.withLock { $0.rebuilding = false }
    }
}
