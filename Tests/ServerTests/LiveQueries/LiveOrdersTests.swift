import Testing

@testable import Server

/// The orders a live collection keeps for its sorts (`LiveOrders`): each version's changes are placed in
/// every order a group reads, and an order no group reads is dropped once it has been idle.
@Suite struct LiveOrdersTests {
    typealias Row = LiveRankingTests.Row
    typealias RowQuery = LiveRankingTests.RowQuery

    static let sorting = RowQuery(groups: nil, keys: [(0, true), (2, false)], window: .all, keepsOrder: true)

    static func order(of mirror: LiveMirror<Row>) -> LiveOrders<RowQuery>.Order {
        .init(query: sorting, items: LiveRanking(sorting, entries: mirror.entries).items)
    }

    @Test(arguments: [3, 256])
    func anOrderAGroupReadsFollowsEveryVersionAndOneNoneReadsIsDropped(chunks: Int) {
        LiveChunkCapacity.$value.withValue(chunks) { followEveryVersion() }
    }

    func followEveryVersion() {
        var random = LiveRankingTests.RandomRows(seed: 3)
        var mirror = LiveMirror(items: (0..<20).map { _ in random.row() }, key: LiveRankingTests.key)
        var orders = LiveOrders<RowQuery>(idle: .zero)
        orders.keep(Self.order(of: mirror), key: "a")
        orders.use("a", by: 1)
        orders.keep(Self.order(of: mirror), key: "b")
        for step in 1...200 {
            let edit = random.edit(of: mirror, kept: 3)
            guard let change = mirror.apply(edit, key: LiveRankingTests.key) else { continue }
            orders.apply(LiveVersion(id: UInt64(step), changes: [change]))
            let expected = Self.sorting.evaluate(mirror.entries.map(\.item)).items
            #expect(orders.items("a")?.map(\.entry.item) == expected, "step \(step)")
            let ranks = LiveRanking(Self.sorting, entries: mirror.entries).items.map(\.entry.rank)
            #expect(orders.items("a")?.map(\.entry.rank) == ranks)
        }
        // The order no group read went at the first version; "a" goes once its group does.
        #expect(!orders.keeps("b"))
        orders.use("a", by: -1)
        #expect(orders.keeps("a"))
        orders.apply(LiveVersion(id: 1000, changes: []))
        #expect(!orders.keeps("a"))
    }
}
