import Testing

@testable import Server

/// A live query's result kept from each changed item (`LiveRanking`, `LiveQueryGroup`): after random
/// writes, a client that applies each change holds exactly what the query answers over the whole
/// collection, for windows and sorts on several fields, and a resume rebuilds the change it missed.
@Suite struct LiveRankingTests {
    struct Row: Equatable, Sendable {
        var id: Int
        var group: Int
        var a: Int
        var b: Int
    }

    /// `group` one of `groups`, sorted by `keys` (a, b or id; descending), cut to `window`.
    struct RowQuery: LiveQuery {
        var groups: Set<Int>?
        var keys: [(field: Int, descending: Bool)]
        var window: LiveWindow
        /// Whether its collection keeps its sort's order up to date (`LiveQuery.ordering`).
        var keepsOrder = false

        /// Counts the calls of `order` while set.
        @TaskLocal static var comparisons: LiveOrderPlacesTests.Count?

        var filtersItems: Bool { groups != nil }
        func itemFilter() -> (Row) -> Bool { { row in groups?.contains(row.group) ?? true } }
        func sortKey(of item: Row) -> [Int] { keys.map { [item.a, item.b, item.id][$0.field] } }
        func order(_ lhs: [Int], _ rhs: [Int]) -> Int {
            Self.comparisons?.add()
            for (position, key) in keys.enumerated() where lhs[position] != rhs[position] {
                return (lhs[position] < rhs[position]) != key.descending ? -1 : 1
            }
            return 0
        }
        var indexTerms: LiveIndexTerms? { nil }
        static func indexValue(of item: Row, field: String) -> String? { nil }
        var ordering: (key: String, query: RowQuery)? {
            guard keepsOrder, !keys.isEmpty else { return nil }
            let name = keys.map { "\($0.descending ? "-" : "+")\($0.field)" }.joined(separator: ",")
            return (name, RowQuery(groups: nil, keys: keys, window: .all, keepsOrder: true))
        }
    }

    static func key(_ row: Row) -> String { String(row.id) }
    static func json(_ row: Row) -> [UInt8] { Array("\(row.id):\(row.group):\(row.a):\(row.b)".utf8) }

    /// The client rule of docs/api.md: drop the deleted and updated keys, then place the inserted and
    /// updated items at their indices, lowest first.
    static func applied(_ change: LiveResultChange, to held: [[UInt8]]) -> [[UInt8]] {
        let updatedKeys = Set(change.updated.map { key(ofJSON: $0.json) })
        let gone = Set(change.deleted).union(updatedKeys)
        var kept = held.filter { !gone.contains(key(ofJSON: $0)) }
        for placed in (change.inserted + change.updated).sorted(by: { $0.index < $1.index }) {
            kept.insert(placed.json, at: placed.index)
        }
        return kept
    }

    static func key(ofJSON json: [UInt8]) -> String {
        String(decoding: json.prefix { $0 != UInt8(ascii: ":") }, as: UTF8.self)
    }

    static func randomQuery(_ rng: inout some RandomNumberGenerator) -> RowQuery {
        let keys = (0..<Int.random(in: 0...2, using: &rng)).map { _ in
            (field: Int.random(in: 0...2, using: &rng), descending: Bool.random(using: &rng))
        }
        let start = Int.random(in: 0...6, using: &rng)
        if Int.random(in: 0..<6, using: &rng) == 0 {
            let page = LiveWindow.pageWithin(
                number: Int.random(in: 1...4, using: &rng), limit: Int.random(in: 1...3, using: &rng))
            return RowQuery(groups: nil, keys: [], window: page)
        }
        let window: LiveWindow =
            Bool.random(using: &rng)
            ? .all
            : .range(start: start, end: Bool.random(using: &rng) ? start + Int.random(in: 0...4, using: &rng) : nil)
        let groups: Set<Int>? = Bool.random(using: &rng) ? nil : [Int.random(in: 0...2, using: &rng)]
        return RowQuery(groups: groups, keys: keys, window: window)
    }

    /// Random rows and random writes of them, repeatable from a seed.
    struct RandomRows {
        var rng: SeededGenerator
        var nextID = 0

        init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

        /// A new row (or a new version of row `id`) with random values.
        mutating func row(id: Int? = nil) -> Row {
            defer { nextID += 1 }
            return Row(
                id: id ?? nextID, group: Int.random(in: 0...2, using: &rng), a: Int.random(in: 0...3, using: &rng),
                b: Int.random(in: 0...3, using: &rng))
        }

        /// A random write of `mirror`'s rows: a removal (while more than `kept` rows remain), a change of a row
        /// (twice as often) or a new row.
        mutating func edit(of mirror: LiveMirror<Row>, kept: Int = 0) -> LiveEdit<Row> {
            let ids = mirror.entries.map(\.item.id)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0 where ids.count > kept: return .remove(key: String(ids.randomElement(using: &rng)!))
            case 1...2 where !ids.isEmpty: return .put(row(id: ids.randomElement(using: &rng)!))
            default: return .put(row())
            }
        }
    }

    /// With chunks of 3 items (`LiveChunkCapacity`) as well, so the held items are split and joined.
    @Test(arguments: 1...6, [3, 256])
    func aClientApplyingEachChangeHoldsTheFreshResult(seed: UInt64, chunks: Int) {
        LiveChunkCapacity.$value.withValue(chunks) { applyEachChange(seed: seed) }
    }

    func applyEachChange(seed: UInt64) {
        var random = RandomRows(seed: seed)
        var mirror = LiveMirror(items: (0..<12).map { _ in random.row() }, key: Self.key)
        let queries = (0..<24).map { _ in Self.randomQuery(&random.rng) }
        // Half the groups hold only their window's first items and a margin of 0 to 2 past it, read anew from
        // the collection when writes leave them short.
        let groups = queries.enumerated().map { index, query in
            LiveQueryGroup(
                key: "q", query: query, entries: mirror.entries, madeAt: 0,
                margin: index % 2 == 0 ? nil : index % 3, encode: Self.json)
        }
        var held = groups.map { $0.ranking.result.items.map(Self.json) }
        var totals = groups.map { $0.ranking.result.total }
        var history: [LiveItemChange<Row>] = []
        var snapshots: [[[[UInt8]]]] = [held]
        for step in 1...300 {
            guard let change = mirror.apply(random.edit(of: mirror), key: Self.key) else { continue }
            history.append(change)
            let version = LiveVersion(id: UInt64(step), changes: [change])
            let items = mirror.entries.map(\.item)
            for (index, group) in groups.enumerated() {
                if let resultChange = group.apply(
                    version, refill: { _ in (mirror.entries, UInt64(step), [], nil, nil) })
                {
                    // A change that changes nothing is never sent.
                    #expect(!resultChange.isEmpty || resultChange.total != totals[index])
                    held[index] = Self.applied(resultChange, to: held[index])
                    totals[index] = resultChange.total
                }
                let fresh = group.ranking.query.evaluate(items)
                #expect(held[index] == fresh.items.map(Self.json), "step \(step), query \(index)")
                #expect(group.ranking.result.total == fresh.total)
            }
            snapshots.append(held)
        }
        // Some bounded group ran short and read its items anew; it held no more than its window and margin.
        #expect(groups.contains { $0.margin != nil && $0.madeAt > 0 })
        for group in groups {
            if let capacity = group.ranking.capacity { #expect(group.ranking.items.count <= capacity + 2) }
        }
        // A client that saw the result after step `seen` gets one change that brings it to the newest.
        for seen in [0, 100, 250, history.count - 1] where seen < snapshots.count {
            for (index, group) in groups.enumerated() {
                let missed = Array(history[seen...])
                var resumed = snapshots[seen][index]
                // A bounded group that cannot rewind that far sends a new result instead.
                guard let change = group.change(since: missed) else {
                    #expect(group.margin != nil, "resume after \(seen), query \(index)")
                    continue
                }
                if let change { resumed = Self.applied(change, to: resumed) }
                #expect(resumed == held[index], "resume after \(seen), query \(index)")
            }
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failure repeats.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
