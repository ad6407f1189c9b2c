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

    /// Its kept orders stay for the whole test: a run slower than the 5 s idle time (a sanitizer's build, a
    /// loaded machine) must not drop the order a step after reads.
    func collection(_ kept: KeptOrder, historyVersions: Int = 24) -> LiveCollection<RowQuery> {
        let limits = LiveQueryEngine.Limits(
            historyVersions: historyVersions, windowMargin: 1, orderIdle: .seconds(3600))
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
                total: snapshot.total, ranked: snapshot.ranked, encode: LiveRankingTests.json)
            #expect(group.ranking.result.items == fresh.items, "step \(step)")
            #expect(group.ranking.result.total == fresh.total, "step \(step)")
            guard let total = snapshot.total else { continue }
            fromOrder += 1
            // From the order: the first items that pass in the query's order, each with its collection rank.
            let passing = mirror.entries.filter { query.itemFilter()($0.item) }
            let sorted = passing.map { (entry: $0, key: query.sortKey(of: $0.item)) }
                .sorted { query.order($0.key, $1.key) < 0 }.map(\.entry)
            #expect(total == fresh.total)
            let read = snapshot.ranked?.map(\.entry) ?? snapshot.entries
            #expect(read.map(\.item) == Array(sorted.prefix(read.count)).map(\.item))
            #expect(read.map(\.rank) == Array(sorted.prefix(read.count)).map(\.rank))
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

/// A sorted live query reads its first items from its sort's order, which the collection keeps up to date
/// from every change once a query of that sort read it (`LiveOrders`): any window, the unbounded ones (no
/// window, `_start` alone) included, and long after the source's kept order fell out of the history.
@Suite struct LiveSortOrderTests {
    typealias Row = LiveRankingTests.Row
    typealias RowQuery = LiveRankingTests.RowQuery

    /// Six sorts: fewer than the orders a collection keeps (`LiveOrders.capacity`).
    static let sorts: [[(field: Int, descending: Bool)]] = [
        [(0, false)], [(0, true)], [(1, false)], [(2, true)], [(0, false), (1, true)], [(1, true), (2, false)],
    ]

    static func query(_ rng: inout some RandomNumberGenerator) -> RowQuery {
        let keys = sorts[Int.random(in: 0..<sorts.count, using: &rng)]
        let start = Int.random(in: 0...4, using: &rng)
        let window: LiveWindow
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: window = .all
        case 1: window = .range(start: start, end: nil)
        case 2:
            window = .pageWithin(number: Int.random(in: 1...4, using: &rng), limit: Int.random(in: 1...3, using: &rng))
        default: window = .range(start: start, end: start + Int.random(in: 0...4, using: &rng))
        }
        let groups: Set<Int>? = Bool.random(using: &rng) ? nil : [Int.random(in: 0...2, using: &rng)]
        return RowQuery(groups: groups, keys: keys, window: window, keepsOrder: true)
    }

    /// With chunks of 3 items (`LiveChunkCapacity`) as well, so the orders and the groups' items are split and
    /// joined as they change.
    @Test(arguments: 1...6, [3, 256])
    func everyReadOfASortAfterItsFirstIsFromItsOrderAndFresh(seed: UInt64, chunks: Int) {
        LiveChunkCapacity.$value.withValue(chunks) { readEverySort(seed: seed) }
    }

    func readEverySort(seed: UInt64) {
        var random = LiveRankingTests.RandomRows(seed: seed)
        let kept = LiveOrderedTests.KeptOrder()
        let rows = LiveOrderedTests().collection(kept)
        var mirror = LiveMirror(items: (0..<30).map { _ in random.row() }, key: LiveRankingTests.key)
        rows.publish(id: 1, items: mirror.entries.map(\.item))
        // The source's order is of version 1 only: after 24 versions the history no longer reaches it.
        kept.rows.withLock { $0 = (mirror.entries.map(\.item), 1) }
        var seen = Set<String>()
        var group: LiveQueryGroup<RowQuery>?
        var held: [[UInt8]] = []
        for step in 2...400 {
            let edit = random.edit(of: mirror, kept: 5)
            _ = mirror.apply(edit, key: LiveRankingTests.key)
            rows.publish(id: UInt64(step), edits: [edit])
            let fresh = { (query: RowQuery) in query.evaluate(mirror.entries.map(\.item)) }
            // One group follows the writes from its creation and refills from the order it ran short.
            if let group, let version = rows.changes(after: UInt64(step - 1), through: UInt64(step)) {
                let change = group.apply(LiveVersion(id: UInt64(step), changes: version)) { query in
                    rows.snapshot(for: query, tracking: false)
                }
                if let change { held = LiveRankingTests.applied(change, to: held) }
                #expect(held == fresh(group.query).items.map(LiveRankingTests.json), "step \(step)")
            }
            let query = Self.query(&random.rng)
            // Off the loop, before a query opens, the order is made when it is not kept: from every item.
            let prepared = Int.random(in: 0..<4, using: &random.rng) == 0
            if prepared { rows.prepareOrder(for: query) }
            guard let snapshot = rows.snapshot(for: query), let name = query.ordering?.key else {
                Issue.record("no snapshot")
                return
            }
            #expect(snapshot.id == UInt64(step))
            // Only a sort read first after step 25 without `prepareOrder` finds no order that the history
            // reaches (the source's is of version 1): then every item is read.
            let fromOrder = snapshot.total != nil
            if prepared || seen.contains(name) || step <= 25 { #expect(fromOrder, "step \(step)") }
            if fromOrder { seen.insert(name) }
            let made = LiveQueryGroup(
                key: "q", query: query, entries: snapshot.entries, madeAt: snapshot.id, margin: 1,
                total: snapshot.total, ranked: snapshot.ranked, encode: LiveRankingTests.json)
            #expect(made.ranking.result.items == fresh(query).items, "step \(step)")
            #expect(made.ranking.result.total == fresh(query).total, "step \(step)")
            if group == nil || step % 50 == 0, fromOrder {
                group = made
                held = made.ranking.result.items.map(LiveRankingTests.json)
            }
        }
        #expect(seen.count > 3)
    }
}
