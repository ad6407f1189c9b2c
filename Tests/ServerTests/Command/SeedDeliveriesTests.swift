import Dispatch
import Synchronization
import Testing

@testable import Server

/// `SeedDeliveries`: each view model's entries on a thread of its own, in journal order; a slow delivery holds
/// only its own lane's answers; the watermark (`delivered`) passes an entry once every entry up to it is in,
/// telling the event hub (`onAdvance`) before releasing `whenDelivered`'s waiters.
@Suite struct SeedDeliveriesTests {
    @Test func aSlowDeliveryHoldsNeitherAnotherLanesDeliveriesNorItsAnswers() {
        let deliveries = SeedDeliveries(delivered: 9)
        let image = DispatchSemaphore(value: 0)
        let calls = Mutex<[String]>([])
        deliveries.onAdvance { entry in calls.withLock { $0.append("advance \(entry)") } }
        deliveries.deliver(10, on: .albums) { image.wait() }
        deliveries.deliver(11, on: .todos) { calls.withLock { $0.append("todo 11") } }
        let answered = DispatchSemaphore(value: 0)
        deliveries.after(.todos) { answered.signal() }
        // The todo's answer comes while the image is still being delivered.
        #expect(answered.wait(timeout: .now() + 10) == .success)
        #expect(calls.withLock { $0 } == ["todo 11"])
        #expect(deliveries.delivered == 9)
        let waited = DispatchSemaphore(value: 0)
        deliveries.whenDelivered(through: 11) {
            calls.withLock { $0.append("waiter 11") }
            waited.signal()
        }
        #expect(waited.wait(timeout: .now() + 0.2) == .timedOut)
        image.signal()
        #expect(waited.wait(timeout: .now() + 10) == .success)
        // The hub hears of the watermark before the waiter it releases runs.
        #expect(calls.withLock { $0 } == ["todo 11", "advance 11", "waiter 11"])
        #expect(deliveries.delivered == 11)
    }

    @Test func eachLaneDeliversInJournalOrderAndTheWatermarkEndsAtTheLast() {
        let deliveries = SeedDeliveries(delivered: 0)
        let seen = Mutex<[SeedDeliveries.Lane: [Int64]]>([:])
        let lanes = SeedDeliveries.Lane.allCases
        for seq in Int64(1)...500 {
            let lane = lanes[Int(seq * 7 % Int64(lanes.count))]
            deliveries.deliver(seq, on: lane) { seen.withLock { $0[lane, default: []].append(seq) } }
        }
        let done = DispatchSemaphore(value: 0)
        deliveries.whenDelivered(through: 500) { done.signal() }
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(deliveries.delivered == 500)
        let byLane = seen.withLock { $0 }
        #expect(byLane.values.reduce(0) { $0 + $1.count } == 500)
        for entries in byLane.values { #expect(entries == entries.sorted()) }
    }

    @Test func aWaiterForAnEntryDeliveredAlreadyRunsAtOnce() {
        let deliveries = SeedDeliveries(delivered: 4)
        let ran = Mutex(false)
        deliveries.whenDelivered(through: 4) { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }

    @Test func theInputsOfOneViewModelShareALane() {
        #expect(SeedDeliveries.Lane(resource: "todos") == .todos)
        for topic in ["selection", "image", "albums"] { #expect(SeedDeliveries.Lane(resource: topic) == .albums) }
        #expect(SeedDeliveries.Lane(resource: "keyword") == .movies)
        #expect(SeedDeliveries.Lane(resource: "posts") == .posts)
    }
}
