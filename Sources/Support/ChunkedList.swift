/// A list kept in chunks of at most `chunkCapacity` items, each chunk an array of its own: a copy of the list
/// shares every chunk, and changing one item of a copy copies that item's chunk and the list of chunks (a
/// reference each), not the items of the others. So a view model whose list the snapshot, the encoder and
/// the event hub still hold pays a write the size of a chunk, not of the list.
///
/// It reads as an array does (`count`, `list[i]`, `for item in list`, `==`, an array literal) and changes as
/// one does (`list[i] = x`, `insert(_:at:)`, `remove(at:)`, `append`): an index is found by binary search over
/// the chunks' ends (O(log chunks)); an insert or removal moves the items of one chunk and renumbers the
/// chunks' ends after it.
///
/// ```swift
/// var list: ChunkedList = [a, b, c]
/// let kept = list            // shares the chunks
/// list.insert(d, at: 1)      // copies the chunk holding index 1 only
/// Array(list) == [a, d, b, c] && Array(kept) == [a, b, c]
/// ```
package struct ChunkedList<Element> {
    /// The most items one chunk holds; a chunk past it is split in halves.
    package static var chunkCapacity: Int { 256 }

    /// The chunks in order, none empty.
    private var chunks: [[Element]]
    /// `ends[c]`: the index just after chunk `c`'s last item (so `ends.last` is `count`).
    private var ends: [Int]

    /// An empty list.
    package init() {
        chunks = []
        ends = []
    }

    /// The list of `elements`, in order, in full chunks.
    package init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        var chunk: [Element] = []
        chunk.reserveCapacity(Self.chunkCapacity)
        for element in elements {
            chunk.append(element)
            if chunk.count == Self.chunkCapacity {
                append(chunk: chunk)
                chunk = []
                chunk.reserveCapacity(Self.chunkCapacity)
            }
        }
        if !chunk.isEmpty { append(chunk: chunk) }
    }

    /// How many chunks hold the items.
    package var chunkCount: Int { chunks.count }

    /// How many of this list's chunks are the very storage of one of `other`'s (shared, not copied).
    package func sharedChunks(with other: ChunkedList) -> Int {
        let theirs = Set(other.chunks.map(Self.address))
        return chunks.reduce(0) { $0 + (theirs.contains(Self.address(of: $1)) ? 1 : 0) }
    }

    private static func address(of chunk: [Element]) -> UInt {
        chunk.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    private mutating func append(chunk: [Element]) {
        ends.append((ends.last ?? 0) + chunk.count)
        chunks.append(chunk)
    }

    /// The chunk holding index `index` (`0..<count`) and the index's place in it.
    private func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        precondition(index >= 0 && index < count, "ChunkedList index \(index) out of range 0..<\(count)")
        var low = 0
        var high = ends.count - 1
        while low < high {
            let middle = low + (high - low) / 2
            if ends[middle] > index { high = middle } else { low = middle + 1 }
        }
        return (low, index - (low == 0 ? 0 : ends[low - 1]))
    }

    /// Adds `change` to the ends of chunk `first` and every chunk after it.
    private mutating func shiftEnds(from first: Int, by change: Int) {
        for chunk in first..<ends.count { ends[chunk] += change }
    }
}

extension ChunkedList: RandomAccessCollection, MutableCollection {
    package typealias Index = Int
    package typealias Indices = Range<Int>

    package var startIndex: Int { 0 }
    package var endIndex: Int { ends.last ?? 0 }
    package var count: Int { ends.last ?? 0 }

    package subscript(position: Int) -> Element {
        get {
            let (chunk, offset) = locate(position)
            return chunks[chunk][offset]
        }
        set {
            let (chunk, offset) = locate(position)
            chunks[chunk][offset] = newValue
        }
    }

    /// Walks the chunks in turn (no search per item).
    package struct Iterator: IteratorProtocol {
        private let chunks: [[Element]]
        private var chunk = 0
        private var offset = 0

        fileprivate init(_ chunks: [[Element]]) {
            self.chunks = chunks
        }

        package mutating func next() -> Element? {
            guard chunk < chunks.count else { return nil }
            let element = chunks[chunk][offset]
            offset += 1
            if offset == chunks[chunk].count {
                chunk += 1
                offset = 0
            }
            return element
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(chunks)
    }
}

extension ChunkedList: RangeReplaceableCollection {
    /// Inserts `element` at `index` (`0...count`), in the chunk holding that index (or the last one, at the
    /// end); a chunk that grows past `chunkCapacity` is split in halves.
    package mutating func insert(_ element: Element, at index: Int) {
        precondition(index >= 0 && index <= count, "ChunkedList insert at \(index) out of range 0...\(count)")
        // NB: an item added at the end starts a new chunk once the last is full, so a list grown by appends
        // (the todos: ids only grow) stays in full chunks.
        guard let last = chunks.last, index < count || last.count < Self.chunkCapacity else {
            return append(chunk: [element])
        }
        let (chunk, offset) = index == count ? (chunks.count - 1, chunks[chunks.count - 1].count) : locate(index)
        chunks[chunk].insert(element, at: offset)
        shiftEnds(from: chunk, by: 1)
        guard chunks[chunk].count > Self.chunkCapacity else { return }
        let half = chunks[chunk].count / 2
        let back = Array(chunks[chunk][half...])
        chunks[chunk].removeSubrange(half...)
        chunks.insert(back, at: chunk + 1)
        ends.insert(ends[chunk], at: chunk + 1)
        ends[chunk] -= back.count
    }

    package mutating func append(_ element: Element) {
        insert(element, at: count)
    }

    /// Removes the item at `index`; an emptied chunk goes, and a chunk left small joins a small neighbour,
    /// so the chunks stay at least a quarter full on average.
    @discardableResult
    package mutating func remove(at index: Int) -> Element {
        let (chunk, offset) = locate(index)
        let element = chunks[chunk].remove(at: offset)
        shiftEnds(from: chunk, by: -1)
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            ends.remove(at: chunk)
        } else if chunk + 1 < chunks.count, chunks[chunk].count + chunks[chunk + 1].count <= Self.chunkCapacity / 2 {
            join(chunk)
        } else if chunk > 0, chunks[chunk - 1].count + chunks[chunk].count <= Self.chunkCapacity / 2 {
            join(chunk - 1)
        }
        return element
    }

    /// Moves chunk `chunk + 1`'s items to the end of chunk `chunk`.
    private mutating func join(_ chunk: Int) {
        let next = chunks.remove(at: chunk + 1)
        chunks[chunk].append(contentsOf: next)
        ends.remove(at: chunk)
    }

    /// Any other replacement: the list made again from its items (O(count)); `insert`, `remove(at:)`,
    /// `append` and a subscript's set change one chunk.
    package mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
    where C.Element == Element {
        if subrange.count == 1, newElements.count == 1, let element = newElements.first {
            self[subrange.lowerBound] = element
            return
        }
        var items = Array(self)
        items.replaceSubrange(subrange, with: newElements)
        self = ChunkedList(items)
    }
}

extension ChunkedList: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension ChunkedList: Equatable where Element: Equatable {
    package static func == (lhs: ChunkedList, rhs: ChunkedList) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension ChunkedList: Encodable where Element: Encodable {
    /// The items as one JSON array, as `[Element]` encodes (the chunks do not show).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension ChunkedList: Sendable where Element: Sendable {}

extension ChunkedList: CustomStringConvertible {
    package var description: String { Array(self).description }
}
