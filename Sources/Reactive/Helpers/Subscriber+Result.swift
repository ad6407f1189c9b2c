extension Subscriber {
    /// Delivers a one-shot result: the value then `.finished`, or the failure.
    @inlinable
    func receive(result: Result<Input, Failure>) {
        switch result {
        case .success(let value):
            _ = receive(value)
            receive(completion: .finished)
        case .failure(let error):
            receive(completion: .failure(error))
        }
    }
}
