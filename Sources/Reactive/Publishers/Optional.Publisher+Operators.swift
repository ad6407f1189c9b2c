// Combine's operators on `Optional.Publisher` return another `Optional.Publisher` (or a `Just`, or an `Empty`),
// computed when the operator is applied: `Optional.Publisher(1).map(f)` is `Optional.Publisher(f(1))`, and an
// empty publisher stays empty whatever the operator (Combine's `count()` and `allSatisfy` of nothing are
// nothing, not 0 and true).

extension Optional.Publisher where Wrapped: Equatable {
    /// Publishes whether the output equals `output`; nothing if there is no output.
    public func contains(_ output: Output) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(self.output.map { $0 == output })
    }

    /// A single output has no duplicates: the publisher itself.
    public func removeDuplicates() -> Optional<Wrapped>.Publisher { self }
}

extension Optional.Publisher where Wrapped: Comparable {
    /// The only output is the smallest: the publisher itself.
    public func min() -> Optional<Wrapped>.Publisher { self }

    /// The only output is the largest: the publisher itself.
    public func max() -> Optional<Wrapped>.Publisher { self }
}

extension Optional.Publisher {
    /// Publishes whether the output satisfies the predicate; nothing if there is no output.
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// The output in an array; an empty array if there is none.
    public func collect() -> Optional<[Output]>.Publisher {
        Optional<[Output]>.Publisher(output.map { [$0] } ?? [])
    }

    /// Publishes the transformed output unless the closure returns nil.
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.flatMap(transform))
    }

    /// The only output is the smallest: the publisher itself.
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher { self }

    /// The only output is the largest: the publisher itself.
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher { self }

    /// Publishes whether the output satisfies the predicate; nothing if there is no output.
    public func contains(where predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// Publishes 1 if there is an output; nothing otherwise.
    public func count() -> Optional<Int>.Publisher { Optional<Int>.Publisher(output.map { _ in 1 }) }

    /// Drops the output unless `count` is zero.
    ///
    /// ```swift
    /// Optional.Publisher(1).dropFirst()   // empty
    /// ```
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "count must not be negative")
        return Optional<Output>.Publisher(count == 0 ? output : nil)
    }

    /// Drops the output if it satisfies the predicate.
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? nil : $0 })
    }

    /// The only output is the first: the publisher itself.
    public func first() -> Optional<Output>.Publisher { self }

    /// Keeps the output if it satisfies the predicate.
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher { filter(predicate) }

    /// The only output is the last: the publisher itself.
    public func last() -> Optional<Output>.Publisher { self }

    /// Keeps the output if it satisfies the predicate.
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher { filter(predicate) }

    /// Keeps the output if it satisfies the predicate.
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { isIncluded($0) ? $0 : nil })
    }

    /// No output, then finished.
    public func ignoreOutput() -> Empty<Output, Failure> { Empty() }

    /// Transforms the output with a closure.
    ///
    /// ```swift
    /// Optional.Publisher(2).map { $0 * 10 }   // Optional.Publisher(20)
    /// ```
    public func map<T>(_ transform: (Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map(transform))
    }

    /// Keeps the output if `index` is zero.
    public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "index must not be negative")
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// Keeps the output if the range holds index zero.
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        let range = range.relative(to: 0..<Int.max)
        precondition(range.lowerBound >= 0, "lowerBound must not be negative")
        // NB: Combine refuses the two largest upper bounds too.
        precondition(range.upperBound < .max - 1)
        return Optional<Output>.Publisher(range.lowerBound == 0 && range.upperBound != 0 ? output : nil)
    }

    /// Keeps the output unless `maxLength` is zero.
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }

    /// Keeps the output if it satisfies the predicate.
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher { filter(predicate) }

    /// Reduces the output with the closure; nothing if there is no output.
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// Applies the closure to the initial result and the output; nothing if there is no output.
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// A single output has no duplicates: the publisher itself.
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Optional<Output>.Publisher { self }

    /// Never fails: the publisher itself.
    public func replaceError(with output: Output) -> Optional<Output>.Publisher { self }

    /// A `Just` of the output, or of `output` if there is none.
    public func replaceEmpty(with output: Output) -> Just<Output> { Just(self.output ?? output) }

    /// Never fails: the publisher itself.
    public func retry(_ times: Int) -> Optional<Output>.Publisher { self }
}
