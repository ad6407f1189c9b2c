public import Synchronization

/// A type-erasing cancellable object that executes a provided closure when canceled, and cancels
/// automatically when deinitialized.
///
/// ```swift
/// var bag = Set<AnyCancellable>()
/// subject.sink { print($0) }.store(in: &bag)
/// ```
// NB: @unchecked Sendable: the only state is one atomic slot, taken out exactly once.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    /// The object to cancel (+1), until taken out by the first `cancel()`. One word, so a subject's sink
    /// costs 32 bytes here: a subject's conduit or fused sink is cancelled directly, anything else through
    /// `Cancellable`.
    @usableFromInline let slot: Atomic<Unmanaged<AnyObject>?>

    /// Initializes the cancellable object with the given cancel-time closure.
    public init(_ cancel: @escaping () -> Void) {
        slot = Atomic(Unmanaged.passRetained(ClosureCancellable(cancel) as AnyObject))
    }

    /// Initializes the cancellable object with the given cancellable, which it cancels in turn.
    public init<C: Cancellable>(_ canceller: C) {
        if let object = canceller as? any AnyObject & Cancellable {
            slot = Atomic(Unmanaged.passRetained(object as AnyObject))
        } else {
            slot = Atomic(Unmanaged.passRetained(ClosureCancellable(canceller.cancel) as AnyObject))
        }
    }

    /// Initializes from a class cancellable, without a dynamic cast.
    @usableFromInline
    init(object: any AnyObject & Cancellable) {
        slot = Atomic(Unmanaged.passRetained(object as AnyObject))
    }

    /// Initializes from an existential cancellable.
    init(existential canceller: any Cancellable) {
        if let object = canceller as? any AnyObject & Cancellable {
            slot = Atomic(Unmanaged.passRetained(object as AnyObject))
        } else {
            slot = Atomic(Unmanaged.passRetained(ClosureCancellable(canceller.cancel) as AnyObject))
        }
    }

    deinit { cancel() }

    /// Cancels the activity; later calls do nothing.
    public func cancel() {
        guard let taken = slot.exchange(nil, ordering: .acquiringAndReleasing) else { return }
        let object = taken.takeRetainedValue()
        if let entry = object as? SubjectEntry {
            entry.cancel()
        } else {
            (object as? any Cancellable)?.cancel()
        }
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
