public import Synchronization

/// What a subject's subscriber list holds: a `ConduitBase` (a `Subscription` for a subscriber) or a
/// `FusedSinkBase` (a `sink` on the subject itself), told apart by `ConduitFlags.fused` in `state`. Both keep
/// their flags in the low bits of `state`, so the subject reads `ended`, `pending` and `hasQueue` without
/// knowing which one it holds.
// NB: @unchecked Sendable: the one field is atomic.
@usableFromInline
class SubjectEntry: @unchecked Sendable {
    /// `ConduitFlags` bits in the low bits; above them a conduit's demand or a fused sink's delivering thread.
    @usableFromInline final let state: Atomic<UInt>

    @inlinable
    init(state: UInt) { self.state = Atomic(state) }

    /// Whether the entry has ended (cancelled or completed).
    @inlinable
    final var isEnded: Bool { state.load(ordering: .relaxed) & ConduitFlags.ended != 0 }

    /// Whether the entry is a fused sink that has ended: the subject may drop it from its list.
    @inlinable
    final var isEndedFusedSink: Bool {
        state.load(ordering: .relaxed) & (ConduitFlags.fused | ConduitFlags.ended)
            == ConduitFlags.fused | ConduitFlags.ended
    }

    /// Marks the entry ended; returns whether it already was.
    @inlinable
    final func markEnded() -> Bool {
        state.bitwiseOr(ConduitFlags.ended, ordering: .sequentiallyConsistent).oldValue & ConduitFlags.ended != 0
    }

    /// Cancels (subclass).
    @usableFromInline
    func cancel() {}
}
