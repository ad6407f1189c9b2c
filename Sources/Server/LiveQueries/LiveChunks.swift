/// A list kept in chunks of at most `capacity` elements, each chunk an array of its own: an insertion or a
/// removal anywhere moves the elements of one chunk and renumbers the chunks' starts, and a copy shares every
/// chunk until one of the two changes it (that chunk alone is copied then). With chunks of a few hundred
/// elements a change costs O(√n) moves for n elements where an array's costs O(n), and a search by the
/// elements' order (`partitioningIndex(where:)`) O(log n) comparisons.
///
/// A live collection's kept order of a sort (`LiveOrders`) and each live query's held items (`LiveRanking`)
/// are such lists: a query opened from the order shares its chunks instead of copying every item, and a write
/// moves a chunk, never the tail of the collection.
///
/// ```swift
/// var list = LiveChunks([1, 3, 5])
/// list.insert(4, at: list.partitioningIndex { $0 < 4 })   // [1, 3, 4, 5]
/// var copy = list                                         // shares the chunks
/// copy.remove(at: 0)                                      // copies the first chunk only
/// ```
struct LiveChunks<Element>: RandomAccessCollection {
    /// The chunks, none empty.
    private var chunks: [[Element]] = []
    /// The index of each chunk's first element.
    private var starts: [Int] = []
    /// How many elements there are.
    private(set) var count = 0
    /// The most elements a chunk holds: a fuller one is split in two.
    let capacity: Int

    /// An empty list, of chunks of `LiveChunkCapacity.value` elements.
    init() { capacity = Swift.max(2, LiveChunkCapacity.value) }

    /// The elements of `elements`, in chunks half full.
    init(_ elements: some Sequence<Element>) {
        self.init()
        let all = Array(elements)
        let size = capacity / 2
        var start = 0
        while start < all.count {
            let end = Swift.min(all.count, start + size)
            starts.append(start)
            chunks.append(Array(all[start..<end]))
            start = end
        }
        count = all.count
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Element {
        let (chunk, offset) = locate(position)
        return chunks[chunk][offset]
    }

    /// How many chunks hold the elements.
    var chunkCount: Int { chunks.count }

    /// The elements in order, chunk by chunk.
    func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    /// Walks the chunks in order.
    struct Iterator: IteratorProtocol {
        let chunks: [[Element]]
        var chunk = 0
        var offset = 0

        init(chunks: [[Element]]) { self.chunks = chunks }

        mutating func next() -> Element? {
            while chunk < chunks.count {
                if offset < chunks[chunk].count {
                    defer { offset += 1 }
                    return chunks[chunk][offset]
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    /// The first index whose element is not `isBefore`, when the elements that are come first (a binary
    /// search, over the chunks' last elements and then in one chunk); `count` when every one is.
    func partitioningIndex(where isBefore: (Element) -> Bool) -> Int {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(chunks[middle][chunks[middle].count - 1]) { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return count }
        let chunk = low
        low = 0
        high = chunks[chunk].count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(chunks[chunk][middle]) { low = middle + 1 } else { high = middle }
        }
        return starts[chunk] + low
    }

    /// Puts `element` at `position` (0 through `count`).
    mutating func insert(_ element: Element, at position: Int) {
        precondition(position >= 0 && position <= count, "index out of range")
        guard !chunks.isEmpty else {
            chunks = [[element]]
            starts = [0]
            count = 1
            return
        }
        let (chunk, offset) =
            position == count ? (chunks.count - 1, count - starts[chunks.count - 1]) : locate(position)
        chunks[chunk].insert(element, at: offset)
        count += 1
        for later in chunk + 1..<starts.count { starts[later] += 1 }
        if chunks[chunk].count > capacity {
            let half = chunks[chunk].count / 2
            let tail = Array(chunks[chunk][half...])
            chunks[chunk].removeSubrange(half...)
            chunks.insert(tail, at: chunk + 1)
            starts.insert(starts[chunk] + half, at: chunk + 1)
        }
    }

    /// Puts `element` after the last.
    mutating func append(_ element: Element) { insert(element, at: count) }

    /// Takes out the element at `position` and gives it; a chunk left small is joined to a neighbour.
    @discardableResult
    mutating func remove(at position: Int) -> Element {
        let (chunk, offset) = locate(position)
        let element = chunks[chunk].remove(at: offset)
        count -= 1
        for later in chunk + 1..<starts.count { starts[later] -= 1 }
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            starts.remove(at: chunk)
        } else if chunks[chunk].count < capacity / 4 {
            // NB: joined while the two fit in one chunk, so there are at most about 4n / capacity chunks.
            if chunk + 1 < chunks.count, chunks[chunk].count + chunks[chunk + 1].count <= capacity {
                join(chunk)
            } else if chunk > 0, chunks[chunk - 1].count + chunks[chunk].count <= capacity {
                join(chunk - 1)
            }
        }
        return element
    }

    /// Keeps the first `length` elements (fewer when there are fewer), dropping the chunks past them.
    mutating func removeSuffix(from length: Int) {
        guard length < count else { return }
        guard length > 0 else {
            self = LiveChunks(capacity: capacity)
            return
        }
        let (chunk, offset) = locate(length)
        chunks.removeSubrange(chunk + 1..<chunks.count)
        starts.removeSubrange(chunk + 1..<starts.count)
        if offset == 0 {
            chunks.removeLast()
            starts.removeLast()
        } else {
            chunks[chunk].removeSubrange(offset...)
        }
        count = length
    }

    /// `transform` of every element, in order, walking the chunks (`map(in:_:)`).
    func map<T>(_ transform: (Element) throws -> T) rethrows -> [T] {
        try map(in: 0..<count, transform)
    }

    /// `transform` of the elements in `range`, in order, walking the chunks: the map of a collection (or of a
    /// slice of it) reads each element through the subscript, a search among the chunks.
    func map<T>(in range: Range<Int>, _ transform: (Element) throws -> T) rethrows -> [T] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range out of bounds")
        var result: [T] = []
        guard !range.isEmpty else { return result }
        result.reserveCapacity(range.count)
        var (chunk, offset) = locate(range.lowerBound)
        while result.count < range.count {
            let elements = chunks[chunk]
            let end = Swift.min(elements.count, offset + range.count - result.count)
            for index in offset..<end { result.append(try transform(elements[index])) }
            chunk += 1
            offset = 0
        }
        return result
    }

    /// The first `length` elements, sharing their chunks.
    func head(_ length: Int) -> LiveChunks {
        var head = self
        head.removeSuffix(from: length)
        return head
    }

    private init(capacity: Int) { self.capacity = capacity }

    /// Puts chunk `chunk + 1` at the end of chunk `chunk`.
    private mutating func join(_ chunk: Int) {
        let next = chunks.remove(at: chunk + 1)
        starts.remove(at: chunk + 1)
        chunks[chunk].append(contentsOf: next)
    }

    /// The chunk of `position` and its place there.
    private func locate(_ position: Int) -> (chunk: Int, offset: Int) {
        precondition(position >= 0 && position < count, "index out of range")
        // The last chunk starting at or before `position`.
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle + 1 } else { high = middle }
        }
        return (low - 1, position - starts[low - 1])
    }
}

extension LiveChunks: Sendable where Element: Sendable {}

/// The chunk size of the `LiveChunks` made in a task: tests make it small, so a few items fill several chunks.
enum LiveChunkCapacity {
    @TaskLocal static var value = 256
}
