import Bitsets
import Domain
import HTTP
import StrictJSON
import Synchronization

/// A large collection's values of a field as one searchable text (`DocumentFieldText`), kept while the
/// collection is unchanged: what `_ne`, `_like` and v1's `:ne`, `:in`, `:contains`, `:startsWith` and
/// `:endsWith` on 100,000 items answer from within the work budget, as json-server answers them (and an
/// equality filter that most items pass, with them or before a sort).
///
/// The first such filter on a field makes the text on a worker, off the loop (it reads every item), as a sort
/// index is built. After a write the next filter on the field makes it again on a worker, and meanwhile the
/// query answers at once from the text of the earlier state and the items changed, added or removed since
/// (`DocumentIndexOverlay`), sorted or ranged by the sort index's order of the collection as it is now; after
/// many changes it waits for the new text.
/// At most `capacity` fields are kept (more after a `_where` naming more: `widest`), the least recently used
/// dropped first. One per collection route.
final class DocumentFieldIndex: Sendable {
    /// The most fields kept (each about the size of the field's values, and 10-40 bytes per item: 2-4 MB on
    /// 100,000 items): so the most fields one query's `_where` is answered from.
    static let capacity = 16

    /// The most fields one `_where` is answered from: while one names more than `capacity`, as many are kept
    /// (so its own texts do not push each other out), up to 64-128 MB on 100,000 items.
    static let conditionCapacity = 32

    struct Kept: Sendable {
        var seq: Int64
        var documents: [StoredDocument]
        var text: DocumentFieldText
        var used: UInt64
        /// Its overlay for the state `now`, once made.
        var overlay: (now: Int64, overlay: DocumentIndexOverlay)?
    }

    /// A kept text, and its overlay for the collection as it is now (`now`) when it is of an earlier state.
    struct Usable {
        var kept: Kept
        var overlay: DocumentIndexOverlay?
        var now: Int64
    }

    /// The places of the items that pass a query's search in the collection as it is now (`documents`).
    typealias Searched = (inout ListQuery.Meter) throws(HTTPError) -> (documents: [StoredDocument], places: [Int])?

    /// The texts by field, a use counter, the fields being made again, and the most fields kept (`capacity`, or
    /// the count of the last `_where` that named more).
    private let kept = Mutex<(fields: [[String]: Kept], clock: UInt64, rebuilding: Set<[String]>, widest: Int)>(
        ([:], 0, [], capacity))
    private let workers: WorkerPool

    init(workers: WorkerPool) {
        self.workers = workers
    }

    /// The places in `query.filters` of the filters the texts of their fields answer on `resource`: none on a
    /// small collection, with `_where`, or when the equality filters alone answer (`few`: one of
    /// them leaves few items; or there is no sort of the many they leave, nor a range marked or a search beside
    /// them: `marking`).
    static func filters(of query: DocumentQuery, on resource: DocumentResource, few: Bool, marking: Bool) -> [Int] {
        guard !few, resource.items.count >= DocumentSortIndex.threshold, query.condition == nil
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
    /// none on a small collection, without `_where`, or past `conditionCapacity` fields.
    static func conditionPaths(of query: DocumentQuery, on resource: DocumentResource) -> [[String]] {
        guard let condition = query.condition, resource.items.count >= DocumentSortIndex.threshold
        else { return [] }
        let paths = condition.textPaths
        return paths.count <= conditionCapacity ? paths : []
    }

    /// The key a `_where` text of the field at `path` is kept under: its path after an empty name, which no
    /// filter's path holds.
    private static func conditionKey(_ path: [String]) -> [String] { [""] + path }

    /// Making the texts of the fields of `query`'s `filters` that are not kept for the collection as it is now
    /// (nor, with its overlay, for an earlier state).
    func missingBuilds(
        _ query: DocumentQuery, _ filters: [Int], conditions: [[String]] = [], on resource: DocumentResource,
        idPath: [String]
    ) -> [@Sendable () -> Void] {
        let keys = Set(filters.map { query.filters[$0].path } + conditions.map(Self.conditionKey))
        if !conditions.isEmpty {
            kept.withLock { state in state.widest = max(Self.capacity, min(keys.count, Self.conditionCapacity)) }
        }
        let found = Dictionary(
            keys.compactMap { key in usable(key, resource, idPath: idPath).map { (key, $0) } },
            uniquingKeysWith: { first, _ in first })
        // NB: `_where`'s texts answer together, so of one state: those of an earlier one are made again.
        let conditionSeqs = Set(conditions.compactMap { found[Self.conditionKey($0)]?.kept.seq })
        let missing = keys.filter { key in
            guard let usable = found[key] else { return true }
            return key.first == "" && conditionSeqs.count > 1 && usable.overlay != nil
        }
        // NB: a `_where`'s fields made a few together, each item read once for all of them (an item kept as its
        // bytes is parsed on each read: 2 s of a debug build's CPU per field on 100,000 items).
        let fields = missing.filter { $0.first != "" }.map { [$0] }
        let conditionKeys = missing.filter { $0.first == "" }.sorted { $0.lexicographicallyPrecedes($1) }
        let groups = stride(from: 0, to: conditionKeys.count, by: Self.together).map {
            Array(conditionKeys[$0..<min($0 + Self.together, conditionKeys.count)])
        }
        return (fields + groups).map { keys in
            { self.build(at: keys, on: resource, idPath: idPath) }
        }
    }

    /// How many `_where` fields one worker makes together.
    private static let together = 8

    /// The answer to `query` when the texts of the fields of its `filters` (`filters(of:on:few:)`), and the
    /// order of its `range` filter's field, are kept for one state of the collection: the items that pass
    /// them, from the marks of their values (and of the range's runs, and the search's places), in the
    /// collection's order or walked in the sort index's order of that state (`order`; with a search alone, the
    /// sorted search), and the rest of the query applied to them as one
    /// work budget. Only the window's items are taken when nothing is left to test. `searched`: the places in
    /// the collection as it is now of the items that pass the query's search (`DocumentSearchIndex.places`),
    /// which the marks are intersected with; without it the items marked are searched one by one. Nil when a
    /// text, or an order, is not kept for the collection as it is now (the query is then applied item by item).
    func answer(
        _ query: DocumentQuery, filters: [Int], conditions: [[String]] = [],
        range: (index: Int, path: [String], order: DocumentSortIndex.Order)?,
        on resource: DocumentResource, order: DocumentSortIndex.Order?, idPath: [String],
        searched: Searched? = nil
    ) throws(HTTPError) -> ListQueryPage<StoredDocument>? {
        let found = filters.compactMap { usable(query.filters[$0].path, resource, idPath: idPath) }
        let conditionFound = conditions.compactMap {
            usable(Self.conditionKey($0), resource, idPath: idPath)
        }
        let (texts, conditionTexts) = (found.map(\.kept), conditionFound.map(\.kept))
        // NB: each text is of the state now, or of an earlier one with its overlay for now (`_where`'s all of
        // one state); a range's order and the sort's are of the state now.
        guard texts.count == filters.count, conditionTexts.count == conditions.count,
            let now = (found + conditionFound).first?.now ?? range?.order.seq ?? order?.seq,
            (found + conditionFound).allSatisfy({ $0.now == now }), range.map({ $0.order.seq == now }) ?? true,
            query.sortKeys.isEmpty || order?.seq == now, Set(conditionTexts.map(\.seq)).count <= 1
        else { return nil }
        // NB: the marks are of the collection's places now: an overlay puts a text's marks of an earlier state
        // at its items' places now.
        let documents =
            (found + conditionFound).lazy.compactMap(\.overlay).first?.documents
            ?? (texts + conditionTexts).first?.documents ?? (range?.order ?? order)?.collection ?? []
        func overlaid(_ passing: [Bool], _ usable: Usable, _ test: (JSONObject) throws(HTTPError) -> Bool)
            throws(HTTPError) -> [Bool]
        {
            guard let overlay = usable.overlay else { return passing }
            return try overlay.passing(passing) { (item) throws(HTTPError) in try test(item.object) }
        }
        let byPath = Dictionary(zip(conditions, conditionTexts.map(\.text)), uniquingKeysWith: { first, _ in first })
        var rest = query
        rest.condition = conditions.isEmpty ? query.condition : nil
        if searched != nil { rest.search = nil }
        for index in Set(filters + (range.map { [$0.index] } ?? [])).sorted(by: >) { rest.filters.remove(at: index) }
        // NB: each filter's items as a `Bitset`, intersected a word at a time, and the sets' loops over every
        // item in C: the same loops in Swift cost 10-20 ms each on 100,000 items in a debug build.
        func places(_ meter: inout ListQuery.Meter) throws(HTTPError) -> [Int] {
            var marked: Bitset?
            func intersect(_ passing: Bitset) {
                if marked == nil { marked = passing } else { marked?.formIntersection(passing) }
            }
            if let range {
                try meter.check()
                intersect(
                    DocumentSortIndex.marks(query, range: (range.index, range.path), order: range.order, idPath: idPath)
                )
            }
            if let condition = query.condition, !conditions.isEmpty {
                // NB: nil only without a text of `conditions`, all of which are kept (checked above).
                let count = conditionTexts[0].documents.count
                guard let passing = try condition.passingSet(count: count, texts: byPath, meter: &meter) else {
                    throw ListQuery.tooExpensive("the '_where' condition could not be answered; try again")
                }
                if conditionFound[0].overlay == nil {
                    intersect(passing)
                } else {
                    intersect(Bitset(flags: try overlaid(passing.flags, conditionFound[0], condition.matches)))
                }
            }
            for (index, usable) in zip(filters, found) {
                let (kept, earlier) = (usable.kept, usable.kept.documents)
                var single = DocumentQuery.sortingOnly(query)
                single.filters = [query.filters[index]]
                let passing = try overlaid(
                    try kept.text.passing(query.filters[index], meter: &meter) { earlier[$0].object }, usable,
                    single.itemCheck())
                intersect(Bitset(flags: passing))
            }
            if let searched, query.search != nil {
                // NB: of the state now, as the marks are; nil only when the text went meanwhile.
                guard let found = try searched(&meter), found.documents.count == documents.count else {
                    throw ListQuery.tooExpensive("the search ('q') could not be answered; try again")
                }
                intersect(Bitset(size: documents.count, places: found.places))
            }
            try meter.check()
            let passing = marked ?? Bitset(size: documents.count, full: true)
            if let order, !query.sortKeys.isEmpty { return passing.places(in: order.placesByRank) }
            return passing.places
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

    /// Makes the texts of the fields at `keys` (paths, or `_where` fields' `conditionKey`s) of the collection as
    /// it is now, and keeps them; each item is read once for all the `_where` fields.
    func build(at keys: [[String]], on resource: DocumentResource, idPath: [String]) {
        let (items, seq) = resource.itemsAndSeq
        let documents = items.documents
        var texts: [(key: [String], text: DocumentFieldText)] = []
        let paths = keys.filter { $0.first == "" }.map { Array($0.dropFirst()) }
        if !paths.isEmpty {
            var values = [[(value: JSONValue?, depth: UInt8)]](repeating: [], count: paths.count)
            for index in values.indices { values[index].reserveCapacity(documents.count) }
            for document in documents {
                let object = document.object
                for (index, path) in paths.enumerated() {
                    values[index].append(DocumentFieldText.conditionValue(in: object, at: path))
                }
            }
            for (path, values) in zip(paths, values) {
                texts.append((Self.conditionKey(path), DocumentFieldText(conditionValues: values)))
            }
        }
        for key in keys where key.first != "" {
            let text = DocumentFieldText(
                values: documents.map { document in
                    key == idPath ? document.id?.value : document.object.value(at: key)
                })
            texts.append((key, text))
        }
        kept.withLock { state in
            for (path, text) in texts {
                guard (state.fields[path]?.seq ?? .min) < seq else { continue }
                state.clock &+= 1
                state.fields[path] = Kept(seq: seq, documents: documents, text: text, used: state.clock)
                if state.fields.count > state.widest,
                    let oldest = state.fields.min(by: { $0.value.used < $1.value.used })?.key
                {
                    state.fields[oldest] = nil
                }
            }
        }
    }

    /// The text kept at `key`, and its overlay for the collection as it is now when it is of an earlier
    /// state (whose text for now it then starts making on a worker); nil when none is kept, or it is too far
    /// from now (then it is dropped: it holds the field of every item of an older state).
    private func usable(_ key: [String], _ resource: DocumentResource, idPath: [String]) -> Usable? {
        let (items, seq) = resource.itemsAndSeq
        let held: Kept? = kept.withLock { state in
            guard var held = state.fields[key] else { return nil }
            state.clock &+= 1
            held.used = state.clock
            state.fields[key] = held
            return held
        }
        guard let held else { return nil }
        if held.seq == seq { return Usable(kept: held, overlay: nil, now: seq) }
        if let cached = held.overlay, cached.now == seq { return Usable(kept: held, overlay: cached.overlay, now: seq) }
        guard let overlay = DocumentIndexOverlay(kept: held.documents, keptSeq: held.seq, now: items) else {
            kept.withLock { state in
                if state.fields[key]?.seq == held.seq { state.fields[key] = nil }
            }
            return nil
        }
        let start = kept.withLock { state in
            if state.fields[key]?.seq == held.seq { state.fields[key]?.overlay = (seq, overlay) }
            return state.rebuilding.insert(key).inserted
        }
        if start {
            let submitted = workers.submit {
                self.build(at: [key], on: resource, idPath: idPath)
                self.kept.withLock { _ = $0.rebuilding.remove(key) }
            }
            if !submitted { kept.withLock { _ = $0.rebuilding.remove(key) } }
        }
        return Usable(kept: held, overlay: overlay, now: seq)
    }
}
