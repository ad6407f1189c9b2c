// Combine's operators on `Result.Publisher` return another `Result.Publisher` (or an `Empty`), computed when
// the operator is applied: `Result.Publisher(1).map(f)` is `Result.Publisher(f(1))`, a failure stays a
// failure, and a thrown error becomes the failure of the `try` variants.

extension Result.Publisher where Output: Equatable {
    /// Publishes whether the output equals `output`.
    public func contains(_ output: Output) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map { $0 == output })
    }

    /// A single output has no duplicates: the publisher itself.
    public func removeDuplicates() -> Result<Output, Failure>.Publisher { self }
}

extension Result.Publisher where Output: Comparable {
    /// The only output is the smallest: the publisher itself.
    public func min() -> Result<Output, Failure>.Publisher { self }

    /// The only output is the largest: the publisher itself.
    public func max() -> Result<Output, Failure>.Publisher { self }
}

extension Result.Publisher {
    /// Publishes whether the output satisfies the predicate.
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Publishes whether the output satisfies the throwing predicate; a thrown error becomes the failure.
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(result.tryMap(predicate))
    }

    /// Publishes whether the output satisfies the predicate.
    public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Publishes whether the output satisfies the throwing predicate; a thrown error becomes the failure.
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(result.tryMap(predicate))
    }

    /// The output in an array.
    public func collect() -> Result<[Output], Failure>.Publisher {
        Result<[Output], Failure>.Publisher(result.map { [$0] })
    }

    /// The only output is the smallest: the publisher itself.
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher { self }

    /// The only output is the smallest, after the comparator has compared it with itself once (a throw fails).
    public func tryMin(by areInIncreasingOrder: (Output, Output) throws -> Bool) -> Result<Output, any Error>.Publisher
    {
        Result<Output, any Error>.Publisher(askedOnce(areInIncreasingOrder))
    }

    /// The only output is the largest: the publisher itself.
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher { self }

    /// The only output is the largest, after the comparator has compared it with itself once (a throw fails).
    public func tryMax(by areInIncreasingOrder: (Output, Output) throws -> Bool) -> Result<Output, any Error>.Publisher
    {
        Result<Output, any Error>.Publisher(askedOnce(areInIncreasingOrder))
    }

    /// Publishes 1, or the failure.
    public func count() -> Result<Int, Failure>.Publisher { Result<Int, Failure>.Publisher(result.map { _ in 1 }) }

    /// The only output is the first: the publisher itself.
    public func first() -> Result<Output, Failure>.Publisher { self }

    /// The only output is the last: the publisher itself.
    public func last() -> Result<Output, Failure>.Publisher { self }

    /// No output, then finished (a failure is dropped: Combine's `ignoreOutput` here is an `Empty`).
    public func ignoreOutput() -> Empty<Output, Failure> { Empty() }

    /// Transforms the output with a closure.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(2).map { $0 * 10 }   // Result.Publisher(20)
    /// ```
    public func map<T>(_ transform: (Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map(transform))
    }

    /// Transforms the output with a throwing closure; a thrown error becomes the failure.
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(result.tryMap(transform))
    }

    /// Transforms the failure with a closure.
    public func mapError<E: Error>(_ transform: (Failure) -> E) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(result.mapError(transform))
    }

    /// A single output has no duplicates: the publisher itself.
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// A single output has no duplicates; the predicate compares it with itself once (a throw fails).
    public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool)
        -> Result<Output, any Error>.Publisher
    {
        Result<Output, any Error>.Publisher(askedOnce(predicate))
    }

    /// The output after asking `predicate` once to compare it with itself (a throw becomes the failure), or the
    /// failure unasked.
    // NB: Combine's `tryMin`, `tryMax` and `tryRemoveDuplicates` on a single output do this, as OpenCombine's
    // suite records (the comparator is called once per success).
    private func askedOnce(_ predicate: (Output, Output) throws -> Bool) -> Result<Output, any Error> {
        switch result {
        case .success(let output):
            do {
                _ = try predicate(output, output)
                return .success(output)
            } catch {
                return .failure(error)
            }
        case .failure(let error):
            return .failure(error)
        }
    }

    /// The output, or `output` in place of the failure.
    public func replaceError(with output: Output) -> Result<Output, Never>.Publisher {
        switch result {
        case .success(let value): Result<Output, Never>.Publisher(value)
        case .failure: Result<Output, Never>.Publisher(output)
        }
    }

    /// Never empty: the publisher itself.
    public func replaceEmpty(with output: Output) -> Result<Output, Failure>.Publisher { self }

    /// Retrying gives the same result: the publisher itself.
    public func retry(_ times: Int) -> Result<Output, Failure>.Publisher { self }

    /// Reduces the output with the closure.
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// Reduces the output with the throwing closure; a thrown error becomes the failure.
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, any Error>.Publisher
    {
        Result<T, any Error>.Publisher(result.tryMap { try nextPartialResult(initialResult, $0) })
    }

    /// Applies the closure to the initial result and the output.
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// Applies the throwing closure to the initial result and the output; a thrown error becomes the failure.
    public func tryScan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) throws -> T)
        -> Result<T, any Error>.Publisher
    {
        Result<T, any Error>.Publisher(result.tryMap { try nextPartialResult(initialResult, $0) })
    }
}

extension Result.Publisher where Failure == Never {
    /// Gives the publisher another failure type (it still never fails).
    public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        switch result {
        case .success(let value): Result<Output, E>.Publisher(value)
        }
    }
}

extension Result {
    /// `map` whose closure may throw; the thrown error, or the original failure, becomes the failure.
    fileprivate func tryMap<T>(_ transform: (Success) throws -> T) -> Result<T, any Error> {
        switch self {
        case .success(let value): Result<T, any Error> { try transform(value) }
        case .failure(let failure): .failure(failure)
        }
    }
}
