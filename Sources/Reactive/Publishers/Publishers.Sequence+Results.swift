// Combine's operators on `Publishers.Sequence` that reduce the elements to at most one answer: they return an
// `Optional.Publisher`, a `Result.Publisher` or a `Just` holding it, computed when the operator is applied, as
// in Combine: `[3, 1, 2].publisher.min()` is `Optional.Publisher(1)`.

extension Publishers.Sequence where Failure == Never {
    /// The smallest element by the given order, or nothing for an empty sequence.
    ///
    /// ```swift
    /// ["bb", "a"].publisher.min { $0.count < $1.count }   // "a"
    /// ```
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(sequence.min(by: areInIncreasingOrder))
    }

    /// The largest element by the given order, or nothing for an empty sequence.
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(sequence.max(by: areInIncreasingOrder))
    }

    /// The first element that satisfies the predicate, or nothing.
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(sequence.first(where: predicate))
    }
}

extension Publishers.Sequence where Failure == Never, Elements.Element: Comparable {
    /// The smallest element, or nothing for an empty sequence.
    ///
    /// ```swift
    /// [3, 1, 2].publisher.min()   // 1
    /// ```
    public func min() -> Optional<Output>.Publisher { Optional.Publisher(sequence.min()) }

    /// The largest element, or nothing for an empty sequence.
    public func max() -> Optional<Output>.Publisher { Optional.Publisher(sequence.max()) }
}

extension Publishers.Sequence {
    /// Whether every element satisfies the predicate.
    ///
    /// ```swift
    /// [2, 4].publisher.allSatisfy { $0.isMultiple(of: 2) }   // true
    /// ```
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result.Publisher(.success(sequence.allSatisfy(predicate)))
    }

    /// Whether every element satisfies the throwing predicate; a thrown error becomes the failure.
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result.Publisher(Result { try sequence.allSatisfy(predicate) })
    }

    /// All the elements in one array.
    public func collect() -> Result<[Output], Failure>.Publisher {
        Result.Publisher(.success(Array(sequence)))
    }

    /// Whether an element satisfies the predicate.
    public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result.Publisher(.success(sequence.contains(where: predicate)))
    }

    /// Whether an element satisfies the throwing predicate; a thrown error becomes the failure.
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result.Publisher(Result { try sequence.contains(where: predicate) })
    }

    /// The elements folded into one value.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.reduce(0, +)   // 6
    /// ```
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result.Publisher(.success(sequence.reduce(initialResult, nextPartialResult)))
    }

    /// The elements folded into one value by a throwing closure; a thrown error becomes the failure.
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, any Error>.Publisher
    {
        Result.Publisher(Result { try sequence.reduce(initialResult, nextPartialResult) })
    }
}

extension Publishers.Sequence where Elements.Element: Equatable {
    /// Whether the sequence holds the element.
    public func contains(_ output: Output) -> Result<Bool, Failure>.Publisher {
        Result.Publisher(.success(sequence.contains(output)))
    }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
    /// The first element, or nothing for an empty collection.
    public func first() -> Optional<Output>.Publisher { Optional.Publisher(sequence.first) }

    /// The element at the index, or nothing if the index is outside the collection.
    public func output(at index: Elements.Index) -> Optional<Output>.Publisher {
        Optional.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }
}

extension Publishers.Sequence where Elements: Collection {
    /// The number of elements.
    public func count() -> Result<Int, Failure>.Publisher { Result.Publisher(.success(sequence.count)) }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
    /// The last element, or nothing for an empty collection.
    public func last() -> Optional<Output>.Publisher { Optional.Publisher(sequence.last) }

    /// The last element that satisfies the predicate, or nothing.
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(sequence.last(where: predicate))
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
    /// The element at the index, or nothing if the index is outside the collection.
    public func output(at index: Elements.Index) -> Optional<Output>.Publisher {
        Optional.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }

    /// The number of elements, which a never-failing random-access sequence always has at once.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.count()   // Just(3)
    /// ```
    public func count() -> Just<Int> { Just(sequence.count) }
}

extension Publishers.Sequence where Elements: RandomAccessCollection {
    /// The number of elements.
    public func count() -> Result<Int, Failure>.Publisher { Result.Publisher(.success(sequence.count)) }
}
