// Combine's operators on `Publishers.Sequence` that return another sequence publisher, computed when the
// operator is applied, as in Combine: `[1, 2].publisher.map(f)` is `Publishers.Sequence([f(1), f(2)])`.

extension Publishers.Sequence {
    /// Transforms every element; the result publishes the transformed array.
    public func map<T>(_ transform: (Elements.Element) -> T) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.map(transform))
    }

    /// Transforms every element and keeps the non-nil results.
    public func compactMap<T>(_ transform: (Output) -> T?) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.compactMap(transform))
    }

    /// Keeps the elements that satisfy the predicate.
    public func filter(_ isIncluded: (Output) -> Bool) -> Publishers.Sequence<[Output], Failure> {
        Publishers.Sequence<[Output], Failure>(sequence: sequence.filter(isIncluded))
    }

    /// Every partial result of folding the elements, in order.
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Publishers.Sequence<[T], Failure>
    {
        var partial = initialResult
        var results: [T] = []
        for element in sequence {
            partial = nextPartialResult(partial, element)
            results.append(partial)
        }
        return Publishers.Sequence<[T], Failure>(sequence: results)
    }

    /// The same elements under another failure type.
    public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.Sequence<Elements, E> {
        Publishers.Sequence<Elements, E>(sequence: sequence)
    }

    /// The elements after the first `count`.
    public func dropFirst(_ count: Int = 1) -> Publishers.Sequence<DropFirstSequence<Elements>, Failure> {
        precondition(count >= 0, "count must not be negative")
        return Publishers.Sequence<DropFirstSequence<Elements>, Failure>(sequence: sequence.dropFirst(count))
    }

    /// At most the first `maxLength` elements.
    public func prefix(_ maxLength: Int) -> Publishers.Sequence<PrefixSequence<Elements>, Failure> {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return Publishers.Sequence<PrefixSequence<Elements>, Failure>(sequence: sequence.prefix(maxLength))
    }

    /// No elements, then finished.
    public func ignoreOutput() -> Empty<Output, Failure> { Empty() }

    /// The elements after the leading ones that satisfy the predicate.
    public func drop(while predicate: (Output) -> Bool) -> Publishers.Sequence<DropWhileSequence<Elements>, Failure> {
        Publishers.Sequence<DropWhileSequence<Elements>, Failure>(sequence: sequence.drop(while: predicate))
    }

    /// The leading elements that satisfy the predicate.
    public func prefix(while predicate: (Output) -> Bool) -> Publishers.Sequence<[Output], Failure> {
        Publishers.Sequence<[Output], Failure>(sequence: Array(sequence.prefix(while: predicate)))
    }

    /// The elements with every `nil` replaced by `output`.
    ///
    /// ```swift
    /// [1, nil, 3].publisher.replaceNil(with: 0)   // [1, 0, 3]
    /// ```
    public func replaceNil<T>(with output: T) -> Publishers.Sequence<[Output], Failure> where Elements.Element == T? {
        Publishers.Sequence<[Output], Failure>(sequence: sequence.map { $0 ?? output })
    }
}

extension Publishers.Sequence where Elements: Collection {
    /// The elements in the range of indices.
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Output], Failure> {
        Publishers.Sequence<[Output], Failure>(sequence: Array(sequence[range]))
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection {
    /// The elements in the range of indices.
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Output], Failure> {
        Publishers.Sequence<[Output], Failure>(sequence: Array(sequence[range]))
    }
}

extension Publishers.Sequence where Elements: RangeReplaceableCollection {
    /// The given elements, then this sequence's.
    ///
    /// ```swift
    /// [3, 4].publisher.prepend(1, 2)   // [1, 2, 3, 4]
    /// ```
    public func prepend(_ elements: Output...) -> Publishers.Sequence<Elements, Failure> { prepend(elements) }

    /// The given elements, then this sequence's.
    public func prepend<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
    where S.Element == Output {
        // NB: built as Combine's builds it (room reserved first), so a collection that counts its calls sees the
        // same ones.
        var joined = Elements()
        joined.reserveCapacity(elements.underestimatedCount + sequence.count)
        joined.append(contentsOf: elements)
        joined.append(contentsOf: sequence)
        return Publishers.Sequence<Elements, Failure>(sequence: joined)
    }

    /// The other publisher's elements, then this sequence's.
    public func prepend(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        var joined = publisher.sequence
        joined.append(contentsOf: sequence)
        return Publishers.Sequence<Elements, Failure>(sequence: joined)
    }

    /// This sequence's elements, then the given ones.
    ///
    /// ```swift
    /// [1, 2].publisher.append(3, 4)   // [1, 2, 3, 4]
    /// ```
    public func append(_ elements: Output...) -> Publishers.Sequence<Elements, Failure> { append(elements) }

    /// This sequence's elements, then the given ones.
    public func append<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
    where S.Element == Output {
        var joined = sequence
        joined.append(contentsOf: elements)
        return Publishers.Sequence<Elements, Failure>(sequence: joined)
    }

    /// This sequence's elements, then the other publisher's.
    public func append(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        append(publisher.sequence)
    }
}

extension Publishers.Sequence where Elements.Element: Equatable {
    /// The elements without consecutive repeats.
    public func removeDuplicates() -> Publishers.Sequence<[Output], Failure> {
        var kept: [Output] = []
        for element in sequence where kept.last != element { kept.append(element) }
        return Publishers.Sequence<[Output], Failure>(sequence: kept)
    }
}
