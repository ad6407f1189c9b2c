import Domain
import HTTP
import StrictJSON
import Synchronization

/// A large collection's values of a field as one searchable text (`DocumentFieldText`), kept while the
/// collection is unchanged: what `_ne`, `_like` and v1's `:ne`, `:in`, `:contains`, `:startsWith` and
/// `:endsWith` on 100,000 items answer from within the work budget, as json-server answers them (and an
/// equality filter that most items pass, with them or before a sort).
///
/// The first such filter on a field of the collection as it is now makes the text on a worker, off the loop
/// (it reads every item), as a sort index is built; a write makes it stale, and the next filter on the field
/// makes it again. At most `capacity` fields are kept, the least recently used dropped first. One per
/// collection route.
final class DocumentFieldIndex: Sendable {
    /// The most fields kept (each about the size of the field's values, and one reference per item).
    static let capacity = 4

    struct Kept: Sendable {
        var seq: Int64
        var documents: [StoredDocument]
        var text: DocumentFieldText
        var used: UInt64
    }

    private let kept = Mutex<(fields: [[String]: Kept], clock: UInt64)>(([:], 0))

    /// The places in `query.filters` of the filters the texts of their fields answer on `resource`: none on a
    /// small collection, with a search or `_where`, or when the equality filters alone answer (`few`: one of
    /// them leaves few items; or there is no sort of the many they leave, nor a range marked beside them:
    /// `marking`).
    static func filters(of query: DocumentQuery, on resource: DocumentResource, few: Bool, marking: Bool) -> [Int] {
        guard !few, resource.items.count >= DocumentSortIndex.threshold, query.search == nil, query.condition == nil
        else { return [] }
        var paths: Set<[String]> = []
        var answered: [Int] = []
        for (index, filter) in query.filters.enumerated() where DocumentFieldText.answers(filter) {
            paths.insert(filter.path)
            if paths.count > capacity { break }
            answered.append(index)
        }
        let equalities = answered.allSatisfy { query.filters[$0].operator == .equal }
        return equalities && query.sortKeys.isEmpty && !marking ? [] : answered
    }

    /// The paths of the fields whose texts answer `query`'s `_where` on `resource` (`DocumentWhere.textPaths`):
    /// none on a small collection, without `_where`, with a search, or past `capacity` fields.
    static func conditionPaths(of query: DocumentQuery, on resource: DocumentResource) -> [[String]] {
        guard let condition = query.condition, query.search == nil,
            resource.items.count >= DocumentSortIndex.threshold
        else { return [] }
        let paths = condition.textPaths
        return paths.count <= capacity ? paths : []
    }

    /// The key a `_where` text of the field at `path` is kept under: its path after an empty name, which no
    /// filter's path holds.
    private static func conditionKey(_ path: [String]) -> [String] { [""] + path }

    /// Making the texts of the fields of `query`'s `filters` that are not kept for the collection as it is now.
    func missingBuilds(
        _ query: DocumentQuery, _ filters: [Int], conditions: [[String]] = [], on resource: DocumentResource,
        idPath: [String]
    ) -> [@Sendable () -> Void] {
        let keys = Set(filters.map { query.filters[$0].path } + conditions.map(Self.conditionKey))
        return keys.filter { current($0, resource) == nil }.map { key in
            { self.build(at: key, on: resource, idPath: idPath) }
        }
    }

    /// The answer to `query` when the texts of the fields of its `filters` (`filters(of:on:few:)`), and the
    /// order of its `range` filter's field, are kept for one state of the collection: the items that pass
    /// them, from the marks of their values (and of the range's runs), in the collection's order or walked
    /// in the sort index's order of that state (`order`), and the rest of the query applied to them as one
    /// work budget. Only the window's items are taken when nothing is left to test. Nil when a text, or an
    /// order, is not kept for the collection as it is now (the query is then applied item by item).
    func answer(
        _ query: DocumentQuery, filters: [Int], conditions: [[String]] = [],
        range: (index: Int, path: [String], order: DocumentSortIndex.Order)?,
        on resource: DocumentResource, order: DocumentSortIndex.Order?, idPath: [String]
    ) throws(HTTPError) -> ListQueryPage<StoredDocument>? {
        let texts = filters.compactMap { current(query.filters[$0].path, resource) }
        let conditionTexts = conditions.compactMap { current(Self.conditionKey($0), resource) }
        let seqs = (texts + conditionTexts).map(\.seq) + (range.map { [$0.order.seq] } ?? [])
        guard let seq = seqs.first, texts.count == filters.count, conditionTexts.count == conditions.count,
            seqs.allSatisfy({ $0 == seq }), query.sortKeys.isEmpty || order?.seq == seq
        else { return nil }
        let documents = (texts + conditionTexts).first?.documents ?? range?.order.collection ?? []
        let byPath = Dictionary(zip(conditions, conditionTexts.map(\.text)), uniquingKeysWith: { first, _ in first })
        var rest = query
        rest.condition = conditions.isEmpty ? query.condition : nil
        for index in Set(filters + (range.map { [$0.index] } ?? [])).sorted(by: >) { rest.filters.remove(at: index) }
        func places(_ meter: inout ListQuery.Meter) throws(HTTPError) -> [Int] {
            var marked =
                range.map {
                    DocumentSortIndex.marks(query, range: ($0.index, $0.path), order: $0.order, idPath: idPath)
                } ?? []
            if let condition = query.condition, !conditions.isEmpty {
                // NB: nil only without a text of `conditions`, all of which are kept (checked above).
                guard let passing = try condition.passing(count: documents.count, texts: byPath, meter: &meter) else {
                    throw ListQuery.tooExpensive("the '_where' condition could not be answered; try again")
                }
                marked = passing
            }
            for (index, kept) in zip(filters, texts) {
                let passing = try kept.text.passing(query.filters[index], meter: &meter) { documents[$0].object }
                if marked.isEmpty {
                    marked = passing
                } else {
                    for place in marked.indices where !passing[place] { marked[place] = false }
                }
            }
            var places: [Int] = []
            if let order, !query.sortKeys.isEmpty {
                for place in order.placesByRank where marked[place] { places.append(place) }
            } else {
                for place in marked.indices where marked[place] { places.append(place) }
            }
            return places
        }
        if rest.filters.isEmpty && rest.condition == nil {
            var meter = ListQuery.Meter()
            return rest.page(of: try places(&meter)).map { documents[$0] }
        }
        return try rest.apply(
            to: [], presorted: true, object: { $0.object },
            knownValue: { document, path in path == idPath ? document.id?.value : nil },
            found: { meter throws(HTTPError) in try places(&meter).map { documents[$0] } })
    }

    /// Makes the text of the field at `key` (a path, or a `_where` field's `conditionKey`) of the collection as
    /// it is now, and keeps it.
    func build(at key: [String], on resource: DocumentResource, idPath: [String]) {
        let (items, seq) = resource.itemsAndSeq
        let documents = items.documents
        let text: DocumentFieldText
        if key.first == "" {
            let path = Array(key.dropFirst())
            text = DocumentFieldText(
                conditionValues: documents.map { DocumentFieldText.conditionValue(in: $0.object, at: path) })
        } else {
            text = DocumentFieldText(
                values: documents.map { document in
                    key == idPath ? document.id?.value : document.object.value(at: key)
                })
        }
        let path = key
        kept.withLock { state in
            state.clock &+= 1
            state.fields[path] = Kept(seq: seq, documents: documents, text: text, used: state.clock)
            if state.fields.count > Self.capacity,
                let oldest = state.fields.min(by: { $0.value.used < $1.value.used })?.key
            {
                state.fields[oldest] = nil
            }
        }
    }

    private func current(_ path: [String], _ resource: DocumentResource) -> Kept? {
        let seq = resource.itemsAndSeq.seq
        return kept.withLock { state in
            guard var held = state.fields[path] else { return nil }
            guard held.seq == seq else {
                // A stale text is dropped at once: it holds the field of every item of an older state.
                state.fields[path] = nil
                return nil
            }
            state.clock &+= 1
            held.used = state.clock
            state.fields[path] = held
            return held
        }
    }
}
