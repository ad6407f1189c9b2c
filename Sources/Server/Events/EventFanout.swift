import Reactive
import Synchronization

/// The clients of one event loop: one subscription to the hub's feed delivered on the loop
/// (`receive(on:)`), then a plain loop over the loop's clients, instead of a scheduled closure per client
/// per event. Also sends the loop's heartbeats.
///
/// Used on its loop only, except `init`.
///
/// ```swift
/// let fanout = hub.fanout(for: stream.loop)
/// let registration = fanout.add(client)  // on the loop
/// stream.onClose { registration.cancel() }
/// ```
final class EventFanout: @unchecked Sendable {
    // NB: @unchecked because `clients` is only touched on the loop: the feed and the heartbeat are
    // delivered there, and `add`/cancel are called there (a connection's start and close callbacks).

    private var clients: [EventClient] = []
    /// Index of each client in `clients`, for O(1) removal.
    private var slots: [ObjectIdentifier: Int] = [:]
    private var subscription: AnyCancellable?
    private var heartbeatTimer: (any Cancellable)?
    private let live = Atomic<Int>(0)
    private var isFinished = false

    /// Subscribes to `feed` on `scheduler` and starts the heartbeat (every `heartbeat` seconds).
    init<S: Scheduler>(
        feed: PassthroughSubject<EventRecord, Never>, scheduler: S, heartbeat: Double?
    ) {
        subscription = feed.receive(on: scheduler).sink(
            receiveCompletion: { [weak self] _ in self?.finishAll() },
            receiveValue: { [weak self] record in self?.deliver(record) })
        if let heartbeat, heartbeat > 0 {
            heartbeatTimer = scheduler.schedule(
                after: scheduler.now.advanced(by: .seconds(heartbeat)), interval: .seconds(heartbeat)
            ) { [weak self] in
                self?.beat()
            }
        }
    }

    deinit {
        heartbeatTimer?.cancel()
    }

    /// How many clients this loop serves (from any thread).
    var count: Int { live.load(ordering: .acquiring) }

    /// Adds a client that was started; cancelling the result removes it (call both on the loop).
    func add(_ client: EventClient) -> AnyCancellable {
        guard !isFinished else {
            client.finish()
            return AnyCancellable {}
        }
        slots[ObjectIdentifier(client)] = clients.count
        clients.append(client)
        live.add(1, ordering: .releasing)
        return AnyCancellable { [weak self, weak client] in
            guard let self, let client else { return }
            self.remove(client)
        }
    }

    /// Sends one event to every client of the loop; cuts off those over their cap.
    func deliver(_ record: EventRecord) {
        var dropped: [EventClient] = []
        for client in clients where !client.deliver(record) {
            dropped.append(client)
        }
        for client in dropped { remove(client) }
    }

    /// Sends `: keep-alive` to every client of the loop.
    func beat() {
        var dropped: [EventClient] = []
        for client in clients where !client.heartbeat() {
            dropped.append(client)
        }
        for client in dropped { remove(client) }
    }

    /// Ends every client's stream (the hub shut down) and refuses new ones.
    func finishAll() {
        isFinished = true
        heartbeatTimer?.cancel()
        heartbeatTimer = nil
        let all = clients
        for client in all {
            remove(client)
            client.finish()
        }
    }

    private func remove(_ client: EventClient) {
        guard let slot = slots.removeValue(forKey: ObjectIdentifier(client)) else { return }
        let last = clients.removeLast()
        if slot < clients.count {
            clients[slot] = last
            slots[ObjectIdentifier(last)] = slot
        }
        live.subtract(1, ordering: .releasing)
    }
}
