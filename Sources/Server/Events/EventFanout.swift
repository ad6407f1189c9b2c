import HTTP
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
/// Sliced: a pass hands the batch to `sliceSize` clients, then yields to the loop (a timer due at once,
/// which runs after the loop has polled its sockets) before the next slice. So while thousands of clients
/// are written, the loop still reads requests (the writes that make the next changes) and answers them;
/// what arrives meanwhile waits in the next batch, and each client's next write carries all of it.
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
    /// The pass under way: the clients when it started, the events it hands them, the next client's index.
    private var pass: (clients: [EventClient], records: [EventRecord], next: Int)?
    /// Schedules work on the loop, after the work already waiting there.
    private let scheduleOnLoop: (@escaping () -> Void) -> Void
    /// Schedules work on the loop's next turn, after it polled its sockets.
    private let yieldToLoop: (@escaping () -> Void) -> Void

    /// Clients handed a batch before the pass yields to the loop.
    static let sliceSize = 256
    private var subscription: AnyCancellable?
    private var heartbeatTimer: (any Cancellable)?
    private let live = Atomic<Int>(0)
    private var isFinished = false

    /// Subscribes to `feed` on `scheduler` and starts the heartbeat (every `heartbeat` seconds).
    init<S: Scheduler>(
        feed: PassthroughSubject<EventRecord, Never>, scheduler: S, heartbeat: Double?
    ) {
        scheduleOnLoop = { work in scheduler.schedule(work) }
        yieldToLoop = { work in scheduler.schedule(after: scheduler.now, work) }
        subscription = feed.receive(on: scheduler).sink(
            receiveCompletion: { [weak self] _ in self?.finishAll() },
            receiveValue: { [weak self] record in self?.enqueue(record) })
        heartbeatTimer = scheduler.heartbeat(every: heartbeat) { [weak self] in self?.beat() }
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
        guard !isPassScheduled, pass == nil else { return }
        isPassScheduled = true
        scheduleOnLoop { [weak self] in self?.deliverBatch() }
    }

    /// Starts a pass with every queued event (unless one is under way) and hands them to its first slice
    /// of clients; cuts off those over their cap.
    func deliverBatch() {
        isPassScheduled = false
        deliverSlice(upTo: Self.sliceSize)
    }

    /// Hands the pass's events to its next `limit` clients (starting the pass from the queued events when
    /// none is under way), then yields to the loop before the next slice or the next pass.
    private func deliverSlice(upTo limit: Int) {
        if pass == nil {
            guard !batch.isEmpty else { return }
            pass = (clients, batch, 0)
            batch.removeAll(keepingCapacity: true)
        }
        guard var current = pass else { return }
        let end = current.next + min(limit, current.clients.count - current.next)
        var dropped: [EventClient] = []
        for client in current.clients[current.next..<end] where !client.deliver(current.records) {
            dropped.append(client)
        }
        for client in dropped { remove(client) }
        current.next = end
        pass = end < current.clients.count ? current : nil
        guard pass != nil || !batch.isEmpty, limit < Int.max else { return }
        isPassScheduled = true
        yieldToLoop { [weak self] in self?.deliverBatch() }
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
        while pass != nil || !batch.isEmpty { deliverSlice(upTo: Int.max) }
        isFinished = true
        heartbeatTimer?.cancel()
        heartbeatTimer = nil
        let all = clients
        for client in all {
            remove(client)
            client.finish()
        }
    }

    /// Ends, with `frame` last, the streams of the clients that asked for `topic` (its resource is gone), after
    /// the events that reached the loop before (from any thread).
    func end(_ topic: EventTopic, with frame: SharedBytes) {
        scheduleOnLoop { [weak self] in
            guard let self else { return }
            while pass != nil || !batch.isEmpty { deliverSlice(upTo: Int.max) }
            for client in clients where client.wants(topic) {
                remove(client)
                client.end(with: frame)
            }
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
