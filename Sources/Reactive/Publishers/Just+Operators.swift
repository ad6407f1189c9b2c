// Combine's operators on `Just` return the simplest publisher that has the result (a `Just`, an
// `Optional.Publisher`, a `Result.Publisher`, an `Empty` or a `Publishers.Sequence`), computed when the
// operator is applied, as in Combine: `Just(1).map(f)` is `Just(f(1))`.

extension Just {
    /// Transforms the output with a closure; the result is a `Just` of the new value.
    public func map<T>(_ transform: (Output) -> T) -> Just<T> { Just<T>(transform(output)) }

    /// Transforms the output with a throwing closure; a thrown error becomes the failure.
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result.Publisher(Result { try transform(output) })
    }

    /// Gives the publisher another failure type (it still never fails).
    public func mapError<E: Error>(_ transform: (Never) -> E) -> Result<Output, E>.Publisher {
        Result.Publisher(output)
    }

    /// Gives the publisher another failure type (it still never fails).
    public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        Result.Publisher(output)
    }

    /// Applies the closure to the initial result and the output.
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
        Result.Publisher(nextPartialResult(initialResult, output))
    }

    /// Applies the throwing closure to the initial result and the output.
    public func tryScan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, any Error>.Publisher
    {
        Result.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// Reduces the output with the closure.
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
        Result.Publisher(nextPartialResult(initialResult, output))
    }

    /// Reduces the output with the throwing closure.
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, any Error>.Publisher
    {
        Result.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// Publishes the output if it satisfies the predicate, else nothing.
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(isIncluded(output) ? output : nil)
    }

    /// Publishes the transformed output unless the closure returns nil.
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional.Publisher(transform(output))
    }

    /// A single output has no duplicates: the publisher itself.
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Just<Output> { self }

    /// A single output has no duplicates; the predicate compares it with itself once (a throw fails).
    public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool)
        -> Result<Output, any Error>.Publisher
    {
        // NB: as Combine's, the predicate is asked once, comparing the output with itself; a throw fails.
        Result.Publisher(
            Result { [output] in
                _ = try predicate(output, output); return output
            })
    }

    /// Never empty: the publisher itself.
    public func replaceEmpty(with output: Output) -> Just<Output> { self }

    /// Never fails: the publisher itself.
    public func replaceError(with output: Output) -> Just<Output> { self }

    /// Never fails: the publisher itself.
    public func retry(_ times: Int) -> Just<Output> { self }

    /// The output in an array.
    public func collect() -> Just<[Output]> { Just<[Output]>([output]) }

    /// No output, then finished.
    public func ignoreOutput() -> Empty<Output, Never> { Empty() }

    /// One output: 1.
    public func count() -> Just<Int> { Just<Int>(1) }

    /// Whether the output satisfies the predicate.
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Just<Bool> { Just<Bool>(predicate(output)) }

    /// Whether the output satisfies the throwing predicate.
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result.Publisher(Result { try predicate(output) })
    }

    /// Whether the output satisfies the predicate.
    public func contains(where predicate: (Output) -> Bool) -> Just<Bool> { Just<Bool>(predicate(output)) }

    /// Whether the output satisfies the throwing predicate.
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result.Publisher(Result { try predicate(output) })
    }

    /// The only output is the smallest: the publisher itself.
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> { self }

    /// The only output is the largest: the publisher itself.
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> { self }

    /// The first output: the publisher itself.
    public func first() -> Just<Output> { self }

    /// The output if it satisfies the predicate.
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(predicate(output) ? output : nil)
    }

    /// The last output: the publisher itself.
    public func last() -> Just<Output> { self }

    /// The output if it satisfies the predicate.
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(predicate(output) ? output : nil)
    }

    /// The output unless it is dropped (`count` > 0).
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "count must not be negative")
        return Optional.Publisher(count == 0 ? output : nil)
    }

    /// The output unless the predicate drops it.
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(predicate(output) ? nil : output)
    }

    /// The output if the prefix is long enough to hold it.
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return Optional.Publisher(maxLength > 0 ? output : nil)
    }

    /// The output if it satisfies the predicate.
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional.Publisher(predicate(output) ? output : nil)
    }

    /// The output if `index` is 0.
    public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "index must not be negative")
        return Optional.Publisher(index == 0 ? output : nil)
    }

    /// The output if the range starts at 0.
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        // NB: Combine's gives the output exactly when the range starts at 0, even an empty one (`0..<0`), and
        // nothing for one that starts below 0 around it (`-10..<10`), as OpenCombine's suite records.
        Optional.Publisher(range.relative(to: 0..<Int.max).lowerBound == 0 ? output : nil)
    }

    /// The elements, then the output.
    public func prepend(_ elements: Output...) -> Publishers.Sequence<[Output], Never> { prepend(elements) }

    /// The elements of the sequence, then the output.
    public func prepend<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never>
    where Output == S.Element {
        // NB: built as Combine's builds it (room reserved from `underestimatedCount`, then appended), so a
        // sequence that counts its calls sees the same ones.
        var all: [Output] = []
        all.reserveCapacity(elements.underestimatedCount + 1)
        all.append(contentsOf: elements)
        all.append(output)
        return Publishers.Sequence(sequence: all)
    }

    /// The output, then the elements.
    public func append(_ elements: Output...) -> Publishers.Sequence<[Output], Never> { append(elements) }

    /// The output, then the elements of the sequence.
    public func append<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never>
    where Output == S.Element {
        var all = [output]
        all.append(contentsOf: elements)
        return Publishers.Sequence(sequence: all)
    }
}

extension Just where Output: Comparable {
    /// The only output is the smallest: the publisher itself.
    public func min() -> Just<Output> { self }

    /// The only output is the largest: the publisher itself.
    public func max() -> Just<Output> { self }
}

extension Just where Output: Equatable {
    /// Whether the output equals `output`.
    public func contains(_ output: Output) -> Just<Bool> { Just<Bool>(self.output == output) }

    /// A single output has no duplicates: the publisher itself.
    public func removeDuplicates() -> Just<Output> { self }
}
