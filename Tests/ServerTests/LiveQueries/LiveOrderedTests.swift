import Synchronization
import Testing

@testable import Server

/// A bounded live query without an equality filter takes its first items from a kept order of the
/// collection (a data file's sort index), which may be of an earlier version: random writes against random
/// windows and sorts, the order kept now and then, and every read from it equal to the query evaluated over
/// the whole collection; an order older than the history, or not of the collection's items, is not used.
@Suite struct LiveOrderedTests {
    typealias Row = LiveRankingTests.Row
    typealias RowQuery = LiveRankingTests.RowQuery

    /// The rows of a kept order (in the collection's order) and the id of the version they are of.
    final class KeptOrder: Sendable {
        let rows = Mutex<(items: [Row], id: UInt64)?>(nil)

        /// `query`'s order of the kept rows: sorted by its keys, ties in the collection's order.
        func order(for query: RowQuery) -> (items: [Row], id: UInt64)? {
            rows.withLock { kept in
                kept.map { kept in
                    let keyed = kept.items.map { (row: $0, key: query.sortKey(of: $0)) }
                    return (keyed.sorted { query.order($0.key, $1.key) < 0 }.map(\.row), kept.id)
                }
            }
        }
    }

    func collection(_ kept: KeptOrder, historyVersions: Int = 24) -> LiveCollection<RowQuery> {
        let limits = LiveQueryEngine.Limits(historyVersions: historyVersions, windowMargin: 1)
        return LiveQueryEngine(limits: limits, heartbeat: nil).register(
            "rows", query: RowQuery.self, key: LiveRankingTests.key, encode: LiveRankingTests.json,
            ordered: { kept.order(for: $0) })
    }

    static func boundedQuery(_ rng: inout some RandomNumberGenerator) -> RowQuery {
        let keys = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
            (field: Int.random(in: 0...2, using: &rng), descending: Bool.random(using: &rng))
        }
        let start = Int.random(in: 0...4, using: &rng)
        let window: LiveWindow =
            Int.random(in: 0..<4, using: &rng) == 0
            ? .pageWithin(number: Int.random(in: 1...4, using: &rng), limit: Int.random(in: 1...3, using: &rng))
            : .range(start: start, end: start + Int.random(in: 0...4, using: &rng))
        let groups: Set<Int>? = Bool.random(using: &rng) ? nil : [Int.random(in: 0...2, using: &rng)]
        return RowQuery(groups: groups, keys: keys, window: window)
    }

    @Test(arguments: 1...6)
    func aWindowReadFromAnEarlierOrderIsTheFreshResult(seed: UInt64) {
        var random = LiveRankingTests.RandomRows(seed: seed)
        let kept = KeptOrder()
        let rows = collection(kept)
        var mirror = LiveMirror(items: (0..<30).map { _ in random.row() }, key: LiveRankingTests.key)
        rows.publish(id: 1, items: mirror.entries.map(\.item))
        kept.rows.withLock { $0 = (mirror.entries.map(\.item), 1) }
        var fromOrder = 0
        for step in 2...400 {
            let edit = random.edit(of: mirror, kept: 5)
            _ = mirror.apply(edit, key: LiveRankingTests.key)
            rows.publish(id: UInt64(step), edits: [edit])
            // The order is built again now and then: reads between see an older one.
            if Int.random(in: 0..<15, using: &random.rng) == 0 {
                kept.rows.withLock { $0 = (mirror.entries.map(\.item), UInt64(step)) }
            }
            let query = Self.boundedQuery(&random.rng)
            guard let snapshot = rows.snapshot(for: query) else {
                Issue.record("no snapshot")
                return
            }
            #expect(snapshot.id == UInt64(step))
            let fresh = query.evaluate(mirror.entries.map(\.item))
            // Whichever way it was read, the group made from it holds the fresh result.
            let group = LiveQueryGroup(
                key: "q", query: query, entries: snapshot.entries, madeAt: snapshot.id, margin: 1,
                total: snapshot.total, encode: LiveRankingTests.json)
            #expect(group.ranking.result.items == fresh.items, "step \(step)")
            #expect(group.ranking.result.total == fresh.total, "step \(step)")
            guard let total = snapshot.total else { continue }
            fromOrder += 1
            // From the order: the first items that pass in the query's order, each with its collection rank.
            let passing = mirror.entries.filter { query.itemFilter()($0.item) }
            let sorted = passing.map { (entry: $0, key: query.sortKey(of: $0.item)) }
                .sorted { query.order($0.key, $1.key) < 0 }.map(\.entry)
            #expect(total == fresh.total)
            #expect(snapshot.entries.map(\.item) == Array(sorted.prefix(snapshot.entries.count)).map(\.item))
            #expect(snapshot.entries.map(\.rank) == Array(sorted.prefix(snapshot.entries.count)).map(\.rank))
        }
        // Most reads took the order; some found it older than the history (24 versions) and read every item.
        #expect(fromOrder > 100)
        #expect(fromOrder < 399)
    }

    /// An order whose items are not the collection's as of its version (made of other writes), and one of a
    /// version the collection has not reached yet.
    @Test(arguments: ["other items", "ahead"])
    func anOrderThatIsNotOfTheCollectionIsNotUsed(_ kind: String) {
        let kept = KeptOrder()
        let rows = collection(kept)
        let items = (0..<20).map { Row(id: $0, group: $0 % 3, a: $0 % 4, b: 0) }
        rows.publish(id: 5, items: items)
        let other = items.map { Row(id: $0.id, group: $0.group, a: 3 - $0.a, b: 1) }
        kept.rows.withLock { $0 = kind == "ahead" ? (items, 6) : (other, 5) }
        let query = RowQuery(groups: nil, keys: [(0, false)], window: .range(start: 0, end: 3))
        let snapshot = rows.snapshot(for: query)
        #expect(snapshot?.total == nil)
        #expect(snapshot?.entries.map(\.item) == items)
    }
}
