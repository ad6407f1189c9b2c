import Testing

@testable import Server

/// A collection's history of versions: appended at the end, dropped from the front, read as a list.
@Suite struct LiveHistoryTests {
    static func version(_ id: UInt64) -> LiveVersion<Int> {
        LiveVersion(
            id: id,
            changes: [
                LiveItemChange(key: "\(id)", before: nil, after: LiveEntry(key: "\(id)", item: Int(id), rank: Int(id)))
            ])
    }

    /// Random appends and drops, against a plain array: the same versions in the same order after each.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func holdsWhatAnArrayAppendedAndDroppedTheSameWayHolds(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var history: LiveHistory<Int> = []
        var model: [LiveVersion<Int>] = []
        var id: UInt64 = 0
        for step in 0..<3_000 {
            if Int.random(in: 0..<5, using: &rng) < 3 {
                id += 1
                history.append(Self.version(id))
                model.append(Self.version(id))
            } else {
                let count = Int.random(in: 0...min(model.count, 3), using: &rng)
                history.removeFirst(count)
                model.removeFirst(count)
            }
            #expect(history.map(\.id) == model.map(\.id), "seed \(seed), step \(step)")
            #expect(history.count == model.count)
            #expect(history.first?.id == model.first?.id)
            #expect(history.filter { $0.id > id / 2 }.map(\.id) == model.filter { $0.id > id / 2 }.map(\.id))
        }
        history = []
        #expect(history.isEmpty)
    }
}
