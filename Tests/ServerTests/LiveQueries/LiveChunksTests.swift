import Testing

@testable import Server

/// A chunked list (`LiveChunks`) against a plain array: random insertions, removals, searches, cuts and
/// copies give the same elements in the same order, a copy never sees the other's changes, and no chunk
/// grows past its capacity nor do small chunks pile up.
@Suite struct LiveChunksTests {
    @Test(arguments: [(seed: UInt64(1), chunks: 2), (2, 3), (3, 8), (4, 64), (5, 256)])
    func randomChangesKeepTheSameElementsAsAnArray(seed: UInt64, chunks: Int) {
        var rng = SeededGenerator(seed: seed)
        LiveChunkCapacity.$value.withValue(chunks) {
            var list = LiveChunks<Int>()
            var model: [Int] = []
            var copies: [(list: LiveChunks<Int>, model: [Int])] = []
            for step in 0..<3000 {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<5:
                    let position = Int.random(in: 0...model.count, using: &rng)
                    list.insert(step, at: position)
                    model.insert(step, at: position)
                case 5..<8 where !model.isEmpty:
                    let position = Int.random(in: 0..<model.count, using: &rng)
                    #expect(list.remove(at: position) == model.remove(at: position))
                case 8 where !model.isEmpty:
                    let length = Int.random(in: 0...model.count + 1, using: &rng)
                    #expect(Array(list.head(length)) == Array(model.prefix(length)))
                    if Int.random(in: 0..<8, using: &rng) == 0 {
                        list.removeSuffix(from: length)
                        model = Array(model.prefix(length))
                    }
                default:
                    if copies.count < 6 { copies.append((list, model)) }
                }
                #expect(list.count == model.count, "step \(step)")
                if !model.isEmpty {
                    let position = Int.random(in: 0..<model.count, using: &rng)
                    #expect(list[position] == model[position], "step \(step)")
                }
                if step % 50 == 0 { #expect(Array(list) == model, "step \(step)") }
                if step % 10 == 0 {
                    // The map walking the chunks, of a random range and of everything, is the array's.
                    let lower = Int.random(in: 0...model.count, using: &rng)
                    let upper = Int.random(in: lower...model.count, using: &rng)
                    #expect(list.map(in: lower..<upper) { $0 * 2 } == model[lower..<upper].map { $0 * 2 })
                    #expect(list.map { -$0 } == model.map { -$0 }, "step \(step)")
                }
            }
            #expect(Array(list) == model)
            #expect(list.indices.map { list[$0] } == model)
            // A copy kept what the list held then: the changes since went to the list's own chunks.
            for copy in copies { #expect(Array(copy.list) == copy.model) }
            // Chunks are never fuller than the capacity, nor many more than needed.
            #expect(list.chunkCount <= 4 * model.count / max(1, chunks / 2) + 2)
        }
    }

    /// Kept sorted through insertions at the search's answer, the list equals the sorted array, and the
    /// search finds each element's first place.
    @Test(arguments: [2, 5, 256])
    func theSearchFindsWhereAnElementGoesInASortedList(chunks: Int) {
        var rng = SeededGenerator(seed: UInt64(chunks))
        LiveChunkCapacity.$value.withValue(chunks) {
            var list = LiveChunks<Int>()
            var model: [Int] = []
            for _ in 0..<2000 {
                let value = Int.random(in: 0..<500, using: &rng)
                let position = list.partitioningIndex { $0 < value }
                #expect(position == (model.firstIndex { $0 >= value } ?? model.count))
                if Bool.random(using: &rng) || model.isEmpty {
                    list.insert(value, at: position)
                    model.insert(value, at: position)
                } else if position < model.count, model[position] == value {
                    list.remove(at: position)
                    model.remove(at: position)
                }
            }
            #expect(Array(list) == model)
            #expect(model == model.sorted())
            #expect(list.partitioningIndex { _ in true } == model.count)
            #expect(list.partitioningIndex { _ in false } == 0)
        }
    }

    /// Made from a sequence, the list is in chunks half full, and a change in a copy copies one chunk only.
    @Test func aListMadeFromElementsIsInHalfFullChunksAndCopiesShareThem() {
        LiveChunkCapacity.$value.withValue(10) {
            let list = LiveChunks(0..<100)
            #expect(list.chunkCount == 20)
            #expect(Array(list) == Array(0..<100))
            var copy = list
            copy.insert(-1, at: 50)
            copy.remove(at: 0)
            #expect(Array(list) == Array(0..<100))
            #expect(Array(copy) == Array(1..<50) + [-1] + Array(50..<100))
            #expect(copy.chunkCount == 20)
        }
    }
}
