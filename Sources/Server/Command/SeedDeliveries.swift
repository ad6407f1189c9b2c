import Dispatch
import Storage
import Synchronization

/// Where the seeds' store sends its committed entries into the view models: one thread per view model (a
/// lane), each in journal order, so a slow delivery (a 16 MiB image, a refresh of 100,000 posts) holds only
/// the writes of its own view model, never a todo write. A write is answered on its lane after the lane's
/// earlier deliveries (`after`), so a read that follows its answer shows it.
///
/// Across lanes, entries are delivered out of journal order; `delivered` is the watermark: every entry up to
/// it is in its view model. `whenDelivered` waits for it (`SeedStore.whenApplied`: "everything up to this
/// entry"), and `onAdvance` hands each new watermark to the event hub, which holds an entry's events until it
/// passes them, so `/events` and `Last-Event-ID` stay in journal order (`EventHub.delivered(through:)`).
///
/// ```swift
/// let deliveries = SeedDeliveries(delivered: startSeq)
/// deliveries.deliver(seq, on: .albums) { albums.committedImages.send(image) }
/// deliveries.after(.todos) { respond(response) }
/// deliveries.whenDelivered(through: seq) { done(true) }
/// ```
final class SeedDeliveries: Sendable {
    /// A view model's thread: the resources (journal topics) whose entries go into it.
    enum Lane: String, CaseIterable, Sendable {
        case todos, albums, posts, movies, frameworks

        /// The lane of the resource `name` (`todos` or a `SeedInput.Topic`).
        init(resource name: String) {
            guard let topic = SeedInput.Topic(rawValue: name) else {
                self = .todos
                return
            }
            switch topic {
            // NB: a selection, its image and the photo list all go into the album view model.
            case .selection, .image, .albums: self = .albums
            case .posts: self = .posts
            case .movies, .keyword: self = .movies
            case .frameworks: self = .frameworks
            }
        }
    }

    /// A call of `whenDelivered` waiting for the watermark.
    private struct Waiter {
        var seq: Int64
        var call: @Sendable () -> Void
    }

    private struct State {
        /// The entries handed to a lane and not delivered yet, in increasing order.
        var outstanding: [Int64] = []
        /// The newest entry handed to a lane (or the start's).
        var highest: Int64
        var waiting: [Waiter] = []

        var watermark: Int64 { outstanding.first.map { $0 - 1 } ?? highest }
    }

    /// What `onAdvance` calls (a closure in a struct: see `SeedStore.Input`).
    private struct Advance {
        var call: (@Sendable (Int64) -> Void)?
    }

    private let threads: [Lane: BackgroundThread]
    private let state: Mutex<State>
    private let advance = Mutex(Advance())

    /// Lanes with nothing to deliver, every entry up to `delivered` in its view model.
    init(delivered: Int64) {
        state = Mutex(State(highest: delivered))
        var threads: [Lane: BackgroundThread] = [:]
        for lane in Lane.allCases {
            threads[lane] = BackgroundThread(name: "apply-\(lane.rawValue)", priority: .normal)
        }
        self.threads = threads
    }

    /// Every entry up to this one is in its view model.
    var delivered: Int64 { state.withLock { $0.watermark } }

    /// Hands each new watermark to `call`, on the lane thread that moved it, before `whenDelivered`'s waiters.
    func onAdvance(_ call: @escaping @Sendable (Int64) -> Void) {
        advance.withLock { $0.call = call }
    }

    /// Runs `work`, the delivery of entry `seq`, on `lane` after the lane's earlier jobs. Called in journal
    /// order (the store applies its entries in order), so the watermark stays below `seq` until `work` is done.
    func deliver(_ seq: Int64, on lane: Lane, _ work: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.highest = max(state.highest, seq)
            // NB: entries come in increasing order but for a catch-up's whole list, so this is an append.
            let place = state.outstanding.lastIndex { $0 <= seq }.map { $0 + 1 } ?? 0
            state.outstanding.insert(seq, at: place)
        }
        thread(lane).submit { [self] in
            work()
            done(seq)
        }
    }

    /// Runs `work` on `lane` after the deliveries handed to it before (a write's answer).
    func after(_ lane: Lane, _ work: @escaping @Sendable () -> Void) {
        thread(lane).submit(work)
    }

    /// Runs `work` on `lane` and returns once it is done (the start's replay, in journal order).
    func run(on lane: Lane, _ work: @escaping @Sendable () -> Void) {
        thread(lane).run(work)
    }

    /// Runs `work` once every entry up to `seq` is in its view model: at once when they are.
    func whenDelivered(through seq: Int64, _ work: @escaping @Sendable () -> Void) {
        let now: Bool = state.withLock { state in
            guard state.watermark < seq else { return true }
            state.waiting.append(Waiter(seq: seq, call: work))
            return false
        }
        if now { work() }
    }

    /// Returns once every lane ran the jobs handed to it before, or after `seconds` (a clean stop).
    func drain(within seconds: Double) {
        let done = DispatchSemaphore(value: 0)
        for thread in threads.values { thread.submit { done.signal() } }
        let deadline = DispatchTime.now() + seconds
        for _ in threads.values where done.wait(timeout: deadline) == .timedOut { return }
    }

    private func done(_ seq: Int64) {
        let (moved, watermark, ready): (Bool, Int64, [Waiter]) = state.withLock { state in
            let before = state.watermark
            if let place = state.outstanding.firstIndex(of: seq) { state.outstanding.remove(at: place) }
            let watermark = state.watermark
            guard watermark > before else { return (false, watermark, []) }
            let ready = state.waiting.filter { $0.seq <= watermark }
            state.waiting.removeAll { $0.seq <= watermark }
            return (true, watermark, ready)
        }
        guard moved else { return }
        // NB: the hub first, so a waiter released now finds the entry's events published.
        advance.withLock { $0.call }?(watermark)
        for waiter in ready { waiter.call() }
    }

    private func thread(_ lane: Lane) -> BackgroundThread {
        // Invariant: `init` made one thread per lane.
        threads[lane]!
    }
}
