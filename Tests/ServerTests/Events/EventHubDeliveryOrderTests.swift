import Foundation
import Reactive
import Testing

@testable import HTTP
@testable import Server

/// `EventHub.ordersByDelivery`: the seeds deliver each view model's entries on a thread of its own, so
/// emissions reach the hub out of journal order; the hub holds each until every entry up to its own is
/// delivered (`delivered(through:)`), and clients get the events in journal order, with their entries' ids.
@Suite struct EventHubDeliveryOrderTests {
    let key = FanoutKey()
    let block = EventIDSource.journalBlock

    /// A hub whose entries up to 9 are delivered, and a client on every topic.
    private func makeHub() -> (EventHub, RecordingStream) {
        let hub = EventHub(ids: EventIDSource(journalFloor: 9 * block), heartbeat: nil)
        hub.ordersByDelivery(from: 9)
        let fanout = hub.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared)
        let stream = RecordingStream()
        hub.connect(stream, topics: Set(EventTopic.allCases), diff: false, lastEventID: nil, through: fanout)
        return (hub, stream)
    }

    private func publish(_ hub: EventHub, _ topic: EventTopic, _ seq: Int64?, _ text: String) {
        hub.publish(topic, journaled: EventHub.eventID(seq)) { (Array("\"\(text)\"".utf8), nil) }
    }

    @Test func anEntryDeliveredBeforeAnEarlierOneWaitsForIt() {
        let (hub, stream) = makeHub()
        // The todos' thread delivers entry 11 while the albums' thread is still on entry 10 (a big image).
        publish(hub, .todos, 11, "eleven")
        #expect(stream.events.isEmpty)
        publish(hub, .image, 10, "ten")
        hub.delivered(through: 10)
        #expect(stream.events.map(\.id) == [10 * block])
        hub.delivered(through: 11)
        #expect(stream.events.map(\.id) == [10 * block, 11 * block])
        #expect(stream.events.map(\.data) == [#""ten""#, #""eleven""#])
        #expect(hub.lastEventID == 11 * block)
    }

    @Test func aTopicsLaterEmissionWaitsBehindItsEarlierOne() {
        let (hub, stream) = makeHub()
        publish(hub, .movies, 12, "searching")
        // A value no entry made (or one of an entry delivered already) comes after the movies' held one.
        publish(hub, .movies, nil, "results")
        publish(hub, .frameworks, nil, "local")
        #expect(stream.events.map(\.data) == [#""local""#])
        hub.delivered(through: 12)
        #expect(stream.events.map(\.data) == [#""local""#, #""searching""#, #""results""#])
        #expect(stream.events.map(\.id) == [9 * block + 1, 12 * block, 12 * block + 1])
    }

    @Test func withoutTheOrderAnEntryDeliveredLateLosesItsId() {
        // What the order prevents: entry 10's event after entry 11's cannot take entry 10's id.
        let hub = EventHub(ids: EventIDSource(journalFloor: 9 * block), heartbeat: nil)
        let fanout = hub.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared)
        let stream = RecordingStream()
        hub.connect(stream, topics: Set(EventTopic.allCases), diff: false, lastEventID: nil, through: fanout)
        publish(hub, .todos, 11, "eleven")
        publish(hub, .image, 10, "ten")
        #expect(stream.events.map(\.id) == [11 * block, 11 * block + 1])
    }

    /// Random interleavings of five view models' threads, each delivering its own entries in order: every
    /// client gets every entry's event once, with its entry's id, in journal order.
    @Test(arguments: 0..<8) func randomDeliveriesComeOutInJournalOrder(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let topics: [EventTopic] = [.todos, .image, .posts, .movies, .frameworks]
        let (hub, stream) = makeHub()
        let count = 300
        // Each entry's view model, and each view model's entries waiting, oldest first.
        var lanes: [[Int64]] = Array(repeating: [], count: topics.count)
        for seq in 10..<Int64(10 + count) { lanes[Int.random(in: 0..<topics.count, using: &random)].append(seq) }
        var outstanding = Set(lanes.joined())
        var highest: Int64 = 9
        var expected: [(id: UInt64, data: String)] = []
        while let lane = lanes.indices.filter({ !lanes[$0].isEmpty }).randomElement(using: &random) {
            let seq = lanes[lane].removeFirst()
            publish(hub, topics[lane], seq, "\(seq)")
            expected.append((UInt64(seq) * block, "\"\(seq)\""))
            outstanding.remove(seq)
            highest = max(highest, seq)
            hub.delivered(through: outstanding.min().map { $0 - 1 } ?? highest)
            let ids = stream.events.compactMap(\.id)
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)
        }
        expected.sort { $0.id < $1.id }
        #expect(stream.events.map(\.id) == expected.map(\.id))
        #expect(stream.events.map(\.data) == expected.map(\.data))
    }
}
