/// A protocol indicating that an activity or action supports cancellation.
///
/// ```swift
/// let token: any Cancellable = subject.sink { print($0) }
/// token.cancel()
/// ```
public protocol Cancellable {
    /// Cancel the activity.
    func cancel()
}

extension Cancellable {
    /// Stores this cancellable instance in the specified collection.
    ///
    /// ```swift
    /// subject.sink { print($0) }.store(in: &bag)
    /// ```
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        AnyCancellable(self).store(in: &collection)
    }

    /// Stores this cancellable instance in the specified set.
    public func store(in set: inout Set<AnyCancellable>) {
        AnyCancellable(self).store(in: &set)
    }
}
