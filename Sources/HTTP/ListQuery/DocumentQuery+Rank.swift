extension DocumentQuery {
    /// `items` in the order of their `ranks` (each item's place in a sort index: distinct, but an item the
    /// index lacks, ranked `Int.max`): put in their places in one pass, sorted only when the ranks cannot be.
    static func ordered<Item>(_ items: [Item], byRank ranks: [Int]) -> [Item] {
        let top = ranks.max() ?? 0
        var places = top < Int.max && top < 4 * items.count + 1_000_000 ? [Int](repeating: -1, count: top + 1) : []
        // NB: a loop over the places, not `enumerated()`, which costs several times more in a debug build.
        for index in ranks.indices where !places.isEmpty {
            let rank = ranks[index]
            if places[rank] != -1 { places = [] } else { places[rank] = index }
        }
        guard !places.isEmpty || items.isEmpty else {
            return ranks.indices.sorted { ranks[$0] < ranks[$1] }.map { items[$0] }
        }
        var ordered: [Item] = []
        ordered.reserveCapacity(items.count)
        for index in places where index >= 0 { ordered.append(items[index]) }
        return ordered
    }
}
