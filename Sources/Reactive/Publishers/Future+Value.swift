extension Future where Failure == Never {
    /// The published value, awaited.
    ///
    /// ```swift
    /// let answer = await Future<Int, Never> { $0(.success(42)) }.value
    /// ```
    public var value: Output {
        get async {
            for await output in values { return output }
            // NB: a Future that never fails always produces a value before it finishes.
            fatalError("Future finished without a value")
        }
    }
}

extension Future {
    /// The published value, awaited; throws the future's failure (or `CancellationError` if the task is
    /// cancelled first).
    ///
    /// ```swift
    /// let posts = try await fetchPosts().value
    /// ```
    public var value: Output {
        get async throws {
            for try await output in values { return output }
            throw CancellationError()
        }
    }
}
