import Synchronization
import Testing

@testable import Server

/// A sorted live query that filters no item (`_sort` alone, `_start` alone) takes each write at the places its
/// sort's kept order gave the write's item (`LiveVersion.places`), checked with two comparisons, where it
/// searched its items: the sorted queries of a collection no longer each search for every write's item. A
/// place that does not hold is searched for, so the result stays exact.
@Suite struct LiveOrderPlacesTests {
    typealias Row = LiveRankingTests.Row
    typealias RowQuery = LiveRankingTests.RowQuery

    /// A count of calls, shared by the tasks of one test.
    final class Count: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        /// The calls counted, and the count back to 0.
        func take() -> Int { value.exchange(0, ordering: .relaxed) }
    }

    @Test(arguments: [3, 256])
    func aSortThatFiltersNoneTakesEachWriteAtItsOrdersPlaces(chunks: Int) {
        LiveChunkCapacity.$value.withValue(chunks) { takeEachWriteAtItsPlaces() }
    }

    func takeEachWriteAtItsPlaces() {
        var random = LiveRankingTests.RandomRows(seed: 11)
        var mirror = LiveMirror(items: (0..<500).map { _ in random.row() }, key: LiveRankingTests.key)
        let keys: [(field: Int, descending: Bool)] = [(0, false), (1, true)]
        let sorting = RowQuery(groups: nil, keys: keys, window: .all, keepsOrder: true)
        let orderKey = sorting.ordering!.key
        var orders = LiveOrders<RowQuery>(idle: .seconds(600))
        orders.keep(.init(query: sorting, items: LiveRanking(sorting, entries: mirror.entries).items), key: orderKey)
        orders.use(orderKey, by: 1)
        // `_sort` alone, `_start` alone, a window that ends (held whole), and one that filters (searched).
        let queries = [
            sorting, RowQuery(groups: nil, keys: keys, window: .range(start: 5, end: nil), keepsOrder: true),
            RowQuery(groups: nil, keys: keys, window: .range(start: 0, end: 10), keepsOrder: true),
            RowQuery(groups: [1], keys: keys, window: .range(start: 3, end: nil), keepsOrder: true),
        ]
        let groups = queries.map {
            LiveQueryGroup(key: "q", query: $0, entries: mirror.entries, madeAt: 0, encode: LiveRankingTests.json)
        }
        var held = groups.map { $0.ranking.result.items.map(LiveRankingTests.json) }
        let count = Count()
        for step in 1...200 {
            guard let change = mirror.apply(random.edit(of: mirror), key: LiveRankingTests.key) else { continue }
            var version = LiveVersion(id: UInt64(step), changes: [change])
            version.places = orders.apply(version)
            #expect(version.places[orderKey]?.count == 1)
            // Every fifth write comes with places that do not hold: its item is searched for.
            let misplaced = step % 5 == 0
            if misplaced {
                version.places[orderKey] = version.places[orderKey]?.map {
                    LiveOrderPlace(removed: $0.removed.map { $0 + 1 }, inserted: $0.inserted.map { $0 + 1 })
                }
            }
            let items = mirror.entries.map(\.item)
            for (index, group) in groups.enumerated() {
                let resultChange = RowQuery.$comparisons.withValue(count) { group.apply(version) }
                let compared = count.take()
                if let resultChange { held[index] = LiveRankingTests.applied(resultChange, to: held[index]) }
                let fresh = group.ranking.query.evaluate(items)
                #expect(held[index] == fresh.items.map(LiveRankingTests.json), "step \(step), query \(index)")
                #expect(group.ranking.result.total == fresh.total)
                // Two comparisons check where the item goes; 500 items take 9 or more to search.
                if index < 3, !misplaced { #expect(compared <= 2, "step \(step), query \(index)") }
            }
        }
    }
}
