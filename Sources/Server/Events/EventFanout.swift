import Reactive
import Synchronization

/// The clients of one event loop: one subscription to the hub's feed delivered on the loop
/// (`receive(on:)`), then a plain loop over the loop's clients, instead of a scheduled closure per client
/// per event. Also sends the loop's heartbeats.
///
/// Batched: an event that reaches the loop is queued, and one pass over the clients, scheduled on the
/// loop behind the events already waiting there, hands each client every queued event at once. So when
/// events arrive faster than the loop writes (thousands of clients), each client gets one chunk (one
/// write, one pass) per batch, not per event; at a low rate a batch is the one event, written at once.
///
/// Used on its loop only, except `init`.
///
/// ```swift
/// let fanout = hub.fanout(for: stream.loop)
/// fanout.add(client)  // on the loop
/// stream.onClose { fanout.remove(client) }
/// ```
final class EventFanout: @unchecked Sendable {
    // NB: @unchecked because `clients` is only touched on the loop: the feed and the heartbeat are
    // delivered there, and `add`/cancel are called there (a connection's start and close callbacks).

    private var clients: [EventClient] = []
    /// Events that reached the loop and are not yet handed to the clients, oldest first.
    private var batch: [EventRecord] = []
    /// Whether the pass that delivers `batch` is scheduled.
    private var isPassScheduled = false
    /// Schedules work on the loop, after the work already waiting there.
    private let scheduleOnLoop: (@escaping () -> Void) -> Void
    private var subscription: AnyCancellable?
    private var heartbeatTimer: (any Cancellable)?
    private let live = Atomic<Int>(0)
    private var isFinished = false

    /// Subscribes to `feed` on `scheduler` and starts the heartbeat (every `heartbeat` seconds).
    init<S: Scheduler>(
        feed: PassthroughSubject<EventRecord, Never>, scheduler: S, heartbeat: Double?
    ) {
        scheduleOnLoop = { work in scheduler.schedule(work) }
        subscription = feed.receive(on: scheduler).sink(
            receiveCompletion: { [weak self] _ in self?.finishAll() },
            receiveValue: { [weak self] record in self?.enqueue(record) })
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

    /// Adds a client that was started; `remove` takes it out (call both on the loop).
    func add(_ client: EventClient) {
        guard !isFinished else {
            client.finish()
            return
        }
        // NB: the slot lives in the client, not in a dictionary here: one less table entry per connection.
        client.fanoutSlot = clients.count
        clients.append(client)
        live.add(1, ordering: .releasing)
    }

    /// Queues an event that reached the loop for the next pass over the clients.
    func enqueue(_ record: EventRecord) {
        batch.append(record)
        guard !isPassScheduled else { return }
        isPassScheduled = true
        scheduleOnLoop { [weak self] in self?.deliverBatch() }
    }

    /// Hands every queued event to every client of the loop at once; cuts off those over their cap.
    func deliverBatch() {
        isPassScheduled = false
        guard !batch.isEmpty else { return }
        let records = batch
        batch.removeAll(keepingCapacity: true)
        var dropped: [EventClient] = []
        for client in clients where !client.deliver(records) {
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
        // The events that came before the completion still go out first.
        deliverBatch()
        isFinished = true
        heartbeatTimer?.cancel()
        heartbeatTimer = nil
        let all = clients
        for client in all {
            remove(client)
            client.finish()
        }
    }

    /// Takes a client out (its stream closed); a client not (or no longer) here is ignored.
    func remove(_ client: EventClient) {
        let slot = client.fanoutSlot
        guard slot >= 0, slot < clients.count, clients[slot] === client else { return }
        client.fanoutSlot = -1
        let last = clients.removeLast()
        if slot < clients.count {
            clients[slot] = last
            last.fanoutSlot = slot
        }
        live.subtract(1, ordering: .releasing)
    }
}
