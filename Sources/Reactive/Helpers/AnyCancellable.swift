import Synchronization

/// A type-erasing cancellable object that executes a provided closure when canceled, and cancels
/// automatically when deinitialized.
///
/// ```swift
/// var bag = Set<AnyCancellable>()
/// subject.sink { print($0) }.store(in: &bag)
/// ```
// NB: @unchecked Sendable: the only mutable state is the Mutex-guarded canceller.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    private let canceller: Mutex<CancellerSlot>

    /// Initializes the cancellable object with the given cancel-time closure.
    public init(_ cancel: @escaping () -> Void) {
        canceller = Mutex(CancellerSlot(target: ClosureCancellable(cancel)))
    }

    /// Initializes the cancellable object with the given cancellable, which it cancels in turn.
    public init<C: Cancellable>(_ canceller: C) {
        if let object = canceller as? any AnyObject & Cancellable {
            self.canceller = Mutex(CancellerSlot(target: object))
        } else {
            self.canceller = Mutex(CancellerSlot(target: ClosureCancellable(canceller.cancel)))
        }
    }

    /// Initializes from a class cancellable, without a dynamic cast.
    @usableFromInline
    init(object: any AnyObject & Cancellable) {
        canceller = Mutex(CancellerSlot(target: object))
    }

    /// Initializes from an existential cancellable.
    init(existential canceller: any Cancellable) {
        if let object = canceller as? any AnyObject & Cancellable {
            self.canceller = Mutex(CancellerSlot(target: object))
        } else {
            self.canceller = Mutex(CancellerSlot(target: ClosureCancellable(canceller.cancel)))
        }
    }

    deinit { cancel() }

    /// Cancels the activity; later calls do nothing.
    public func cancel() {
        let target = canceller.withLock { slot -> (any AnyObject & Cancellable)? in
            defer { slot.target = nil }
            return slot.target
        }
        target?.cancel()
    }

    /// Stores this type-erasing cancellable instance in the specified collection.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        collection.append(self)
    }

    /// Stores this type-erasing cancellable instance in the specified set.
    public func store(in set: inout Set<AnyCancellable>) {
        set.insert(self)
    }

    /// Identity equality.
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Holds a cancel closure as an object, so `AnyCancellable` stores one reference either way.
private final class ClosureCancellable: Cancellable {
    private let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
    func cancel() { action() }
}

/// The cancellable an `AnyCancellable` forwards to, until it is taken out once.
// NB: @unchecked Sendable: only ever accessed inside the owning Mutex, and taken out exactly once.
private struct CancellerSlot: @unchecked Sendable {
    var target: (any AnyObject & Cancellable)?
}
