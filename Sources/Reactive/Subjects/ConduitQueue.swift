import Synchronization

/// The type-erased overflow queue, so the conduit's non-generic half can hold it.
// NB: @unchecked Sendable: subclasses keep their events behind a Mutex.
@usableFromInline
class ConduitQueueBase: @unchecked Sendable {
    @usableFromInline init() {}
    /// Drops every queued event of `conduit` (subclass) and clears its pending bit.
    func clear(for conduit: SubjectEntry) {}
}

/// An event waiting in a conduit's queue.
@usableFromInline
enum ConduitEvent<Output, Failure: Error> {
    case value(Output)
    case completion(Subscribers.Completion<Failure>)
}

/// The overflow queue of a conduit, allocated only when two deliveries meet, and kept by the conduit's subject.
// NB: @unchecked Sendable: the events are Mutex-guarded.
@usableFromInline
final class ConduitQueue<Output, Failure: Error>: ConduitQueueBase, @unchecked Sendable {
    let events = Mutex(EventQueue<Output, Failure>())
    @usableFromInline override init() {}

    /// Takes the first queued event of `entry`, clearing its pending bit when that was the last one (under the
    /// lock, as when the events were queued).
    func next(for entry: SubjectEntry) -> ConduitEvent<Output, Failure>? {
        events.withLock { queued in
            let event = queued.popFirst()
            if queued.isEmpty { entry.state.bitwiseAnd(~ConduitFlags.pending, ordering: .sequentiallyConsistent) }
            return event
        }
    }

    override func clear(for conduit: SubjectEntry) {
        // The pending bit moves under the lock, as when the events were queued.
        events.withLock { queued in
            if queued.removeAll() > 0 {
                conduit.state.bitwiseAnd(~ConduitFlags.pending, ordering: .sequentiallyConsistent)
            }
        }
    }
}

// NB: @unchecked Sendable: it only lives inside its queue's Mutex.
struct EventQueue<Output, Failure: Error>: @unchecked Sendable {
    private var events: [ConduitEvent<Output, Failure>] = []
    private var head = 0

    var isEmpty: Bool { head == events.count }

    mutating func append(_ event: ConduitEvent<Output, Failure>) { events.append(event) }

    mutating func popFirst() -> ConduitEvent<Output, Failure>? {
        guard head < events.count else { return nil }
        defer {
            head += 1
            if head == events.count {
                events.removeAll(keepingCapacity: true)
                head = 0
            }
        }
        return events[head]
    }

    /// Drops every event; returns how many were waiting.
    mutating func removeAll() -> Int {
        let count = events.count - head
        events.removeAll()
        head = 0
        return count
    }
}
