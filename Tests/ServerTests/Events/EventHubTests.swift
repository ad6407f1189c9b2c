import Foundation
import Reactive
import ReactiveTesting
import Synchronization
import Testing

@testable import HTTP
@testable import Server

/// `EventHub` and `EventFanout` with recording streams: no sockets, no loops.
@Suite struct EventHubTests {
    let todos = CurrentValueSubject<[Item], Never>([Item(id: 1, title: "Buy Milk")])
    let selections = PassthroughSubject<String, Never>()
    let images = CurrentValueSubject<String?, Never>(nil)
    let key = FanoutKey()

    /// A hub on todos (collection), frameworks (passthrough) and image (optional), delivering at once.
    func makeHub(
        bufferCount: Int = 1024, bufferBytes: Int = 16 << 20, cap: Int = EventClient.defaultCap,
        window: Int = EventClient.defaultWindow
    ) -> (EventHub, EventFanout) {
        let hub = EventHub(
            ids: fixedClock(), bufferCount: bufferCount, bufferBytes: bufferBytes, heartbeat: nil, clientCap: cap,
            clientWindow: window)
        hub.attach(.todos, collection: todos)
        hub.attach(.frameworks, selections)
        hub.attach(.image, optional: images)
        return (hub, hub.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared))
    }

    func connect(
        _ hub: EventHub, _ fanout: EventFanout, topics: Set<EventTopic> = Set(EventTopic.allCases),
        diff: Bool = false, lastEventID: UInt64? = nil
    ) -> RecordingStream {
        let stream = RecordingStream()
        hub.connect(stream, topics: topics, diff: diff, lastEventID: lastEventID, through: fanout)
        return stream
    }

    @Test func startsWithRetryThenTheCurrentValueOfEachCurrentValueTopic() {
        let (hub, fanout) = makeHub()
        selections.send("SwiftUI")
        let stream = connect(hub, fanout)
        #expect(stream.text.hasPrefix("retry: 2000\n\n"))
        #expect(stream.events == [SentEvent(id: 1_000, name: "todos", data: #"[{"id":1,"title":"Buy Milk"}]"#)])
    }

    @Test func replaysAnOptionalTopicOnlyOnceItHasAValue() {
        let (hub, fanout) = makeHub()
        images.send("/placeholder/600/92c952")
        let stream = connect(hub, fanout, topics: [.image, .todos])
        #expect(stream.events.map(\.name) == ["todos", "image"])
        #expect(stream.events.last?.data == #""/placeholder/600/92c952""#)
    }

    @Test func sendsEveryEmissionToEveryClientWithOneGrowingIdAcrossTopics() {
        let (hub, fanout) = makeHub()
        let first = connect(hub, fanout)
        let second = connect(hub, fanout)
        todos.send([Item(id: 1, title: "Buy Milk"), Item(id: 2, title: "Walk the dog")])
        selections.send("Combine")
        todos.send([Item(id: 2, title: "Walk the dog")])
        for stream in [first, second] {
            #expect(stream.events.map(\.name) == ["todos", "todos", "frameworks", "todos"])
            #expect(stream.events.map(\.id) == [1_000, 1_001, 1_002, 1_003])
        }
        #expect(first.written == second.written)
    }

    @Test func encodesEachEmissionOnceWhateverTheNumberOfClients() {
        let subject = PassthroughSubject<CountedValue, Never>()
        let hub = EventHub(ids: fixedClock(), heartbeat: nil)
        hub.attach(.movies, subject)
        let fanout = hub.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared)
        let streams = (0..<50).map { _ in connect(hub, fanout, topics: [.movies]) }
        let before = CountedValue.encodings.load(ordering: .relaxed)
        subject.send(CountedValue(text: "once"))
        #expect(CountedValue.encodings.load(ordering: .relaxed) - before == 1)
        #expect(streams.allSatisfy { $0.events.map(\.data) == [#""once""#] })
    }

    @Test func subscribesOnceToEachSubjectWhateverTheNumberOfClients() {
        var subscriptions = 0
        let subject = PassthroughSubject<String, Never>()
        let hub = EventHub(ids: fixedClock(), heartbeat: nil)
        hub.attach(.frameworks, subject.handleEvents(receiveSubscription: { _ in subscriptions += 1 }))
        let fanout = hub.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared)
        _ = (0..<20).map { _ in connect(hub, fanout) }
        #expect(subscriptions == 1)
    }

    @Test func topicsSelectWhatAClientGets() {
        let (hub, fanout) = makeHub()
        let onlyFrameworks = connect(hub, fanout, topics: [.frameworks])
        todos.send([])
        selections.send("ARKit")
        #expect(onlyFrameworks.events.map(\.name) == ["frameworks"])
    }

    @Test func passthroughTopicIsNotReplayed() {
        let (hub, fanout) = makeHub()
        selections.send("ARKit")
        let stream = connect(hub, fanout, topics: [.frameworks])
        #expect(stream.events.isEmpty)
        selections.send("MapKit")
        #expect(stream.events.map(\.data) == [#""MapKit""#])
    }

    @Test func resumeSendsExactlyTheMissedEventsInOrder() {
        let (hub, fanout) = makeHub()
        let first = connect(hub, fanout, topics: [.todos])
        let seen = first.events.last!.id!
        first.close()
        for n in 2...4 { todos.send((1...n).map { Item(id: $0, title: "T\($0)") }) }
        selections.send("not asked for")
        let resumed = connect(hub, fanout, topics: [.todos], lastEventID: seen)
        #expect(resumed.events.map(\.id) == [1_001, 1_002, 1_003])
        #expect(resumed.events.map { $0.data.components(separatedBy: "\"id\"").count - 1 } == [2, 3, 4])
        todos.send([])
        #expect(resumed.events.map(\.id) == [1_001, 1_002, 1_003, 1_005])
    }

    @Test func resumeFromTheNewestIdSendsNothingMore() {
        let (hub, fanout) = makeHub()
        let resumed = connect(hub, fanout, lastEventID: hub.lastEventID)
        #expect(resumed.events.isEmpty)
        #expect(resumed.text == "retry: 2000\n\n")
    }

    @Test(arguments: [UInt64(1), 999, 5_000_000])
    func resumeFromAnIdTheLogCannotVouchForSendsCurrentValues(lastEventID: UInt64) {
        let (hub, fanout) = makeHub()
        let stream = connect(hub, fanout, lastEventID: lastEventID)
        #expect(stream.events.map(\.name) == ["todos"])
    }

    @Test func resumeFromAnIdOlderThanTheBufferSendsCurrentValues() {
        let (hub, fanout) = makeHub(bufferCount: 4)
        let old = hub.lastEventID
        for n in 0..<5 { selections.send("F\(n)") }
        let stream = connect(hub, fanout, topics: [.todos, .frameworks], lastEventID: old)
        #expect(stream.events.map(\.name) == ["todos"])
        let recent = connect(hub, fanout, topics: [.frameworks], lastEventID: hub.lastEventID - 2)
        #expect(recent.events.map(\.data) == [#""F3""#, #""F4""#])
    }

    @Test func anEventQueuedBeforeTheReplayIsNotSentTwice() {
        let scheduler = DispatchQueue.test
        let hub = EventHub(ids: fixedClock(), heartbeat: nil)
        hub.attach(.todos, collection: todos)
        let fanout = hub.fanout(key: ObjectIdentifier(key), scheduler: scheduler)
        scheduler.advance()
        // Emitted and queued for the loop, but the loop runs the connect first.
        todos.send([Item(id: 9, title: "Queued")])
        let stream = RecordingStream()
        hub.connect(stream, topics: [.todos], diff: false, lastEventID: nil, through: fanout)
        scheduler.advance()
        #expect(stream.events.map(\.id) == [1_001])
        todos.send([])
        scheduler.advance()
        #expect(stream.events.map(\.id) == [1_001, 1_002])
    }

    @Test func diffClientsGetTheWholeListFirstThenChanges() {
        let (hub, fanout) = makeHub()
        let stream = connect(hub, fanout, topics: [.todos], diff: true)
        todos.send([Item(id: 1, title: "Buy oat milk"), Item(id: 2, title: "Walk the dog")])
        todos.send([Item(id: 2, title: "Walk the dog")])
        #expect(
            stream.events.map(\.data) == [
                #"[{"id":1,"title":"Buy Milk"}]"#,
                #"{"deleted":[],"inserted":[{"id":2,"title":"Walk the dog"}],"updated":[{"id":1,"title":"Buy oat milk"}]}"#,
                #"{"deleted":[1],"inserted":[],"updated":[]}"#,
            ])
        let resumed = connect(hub, fanout, topics: [.todos], diff: true, lastEventID: stream.events[1].id)
        #expect(resumed.events.map(\.data) == [#"{"deleted":[1],"inserted":[],"updated":[]}"#])
    }

    @Test func closingAStreamRemovesItsClientAtOnce() {
        let (hub, fanout) = makeHub()
        let baseline = hub.clientCount
        let streams = (0..<3).map { _ in connect(hub, fanout) }
        #expect(hub.clientCount == baseline + 3)
        streams[1].close()
        #expect(hub.clientCount == baseline + 2)
        todos.send([])
        #expect(streams[1].events.count == 1)
        #expect(streams[0].events.count == 2 && streams[2].events.count == 2)
        streams[0].close()
        streams[2].close()
        #expect(hub.clientCount == baseline)
    }

    @Test func aClientThatStopsReadingIsCutOffPastTheCapAndTheOthersGetEverything() {
        let (hub, fanout) = makeHub(cap: 1_000)
        let slow = connect(hub, fanout, topics: [.frameworks])
        let fast = connect(hub, fanout, topics: [.frameworks])
        slow.isStalled = true
        let title = String(repeating: "x", count: 200)
        for n in 0..<20 { selections.send("\(n) \(title)") }
        #expect(slow.isClosed && slow.wasAborted)
        #expect(slow.events.count < 20 && slow.events.count >= 4)
        #expect(fast.events.count == 20 && !fast.isClosed)
        #expect(hub.clientCount == 1)
    }

    @Test func theReplayDoesNotCountAgainstTheCap() {
        todos.send((1...100).map { Item(id: $0, title: "A long enough title for item \($0)") })
        let (hub, fanout) = makeHub(cap: 1_000)
        let stream = RecordingStream()
        stream.isStalled = true
        hub.connect(stream, topics: [.todos], diff: false, lastEventID: nil, through: fanout)
        #expect(stream.pendingBytes > 1_000)
        selections.send("ignored")  // not a topic of this client
        todos.send([])
        #expect(!stream.isClosed)
        #expect(stream.events.count == 2)
    }

    @Test func heartbeatWritesAKeepAliveEveryInterval() {
        let scheduler = DispatchQueue.test
        let hub = EventHub(ids: fixedClock(), heartbeat: 15)
        let fanout = hub.fanout(key: ObjectIdentifier(key), scheduler: scheduler)
        let stream = RecordingStream()
        hub.connect(stream, topics: [.todos], diff: false, lastEventID: nil, through: fanout)
        scheduler.advance(by: .seconds(14))
        #expect(stream.keepAlives == 0)
        scheduler.advance(by: .seconds(1))
        #expect(stream.keepAlives == 1)
        scheduler.advance(by: .seconds(30))
        #expect(stream.keepAlives == 3)
    }

    @Test func shutdownEndsEveryStreamAndRefusesNewClients() {
        let (hub, fanout) = makeHub()
        let streams = (0..<3).map { _ in connect(hub, fanout) }
        hub.shutdown()
        #expect(streams.allSatisfy { $0.isClosed })
        #expect(hub.clientCount == 0)
        let late = connect(hub, fanout)
        #expect(late.isClosed)
        todos.send([])
        #expect(streams.allSatisfy { $0.events.count == 1 })
    }
}

/// The hub with a list's `EncodedSnapshot`: the event carries the snapshot's bytes.
extension EventHubTests {
    /// Counts encodings.
    private final class Counter: Sendable {
        private let encodings = Mutex(0)
        var count: Int { encodings.withLock { $0 } }
        func increment() { encodings.withLock { $0 += 1 } }
    }

    /// An item that counts how often it is encoded.
    private struct CountedItem: Encodable, Identifiable, Equatable, Sendable {
        let id: Int
        let counter: Counter

        func encode(to encoder: any Encoder) throws {
            counter.increment()
            var container = encoder.singleValueContainer()
            try container.encode(id)
        }

        static func == (lhs: CountedItem, rhs: CountedItem) -> Bool { lhs.id == rhs.id }
    }

    @Test func sendsTheSnapshotsBytesWithoutEncodingTheListAgain() {
        let counter = Counter()
        let subject = CurrentValueSubject<[CountedItem], Never>([CountedItem(id: 1, counter: counter)])
        let snapshot = EncodedSnapshot(identifiedList: subject)
        let hub = EventHub(heartbeat: nil)
        hub.attach(.todos, collection: snapshot)
        subject.send([CountedItem(id: 1, counter: counter), CountedItem(id: 2, counter: counter)])
        for _ in 0..<10 { _ = snapshot.response }
        let frames = hub.replay(for: [.todos], diff: false, after: nil).frames
        let replay = String(decoding: frames.flatMap(\.bytes), as: UTF8.self)
        #expect(replay.contains("data: [1,2]"))
        // Each item once (the snapshot keeps item bytes: the second list encodes item 2 only), shared by GET
        // and /events, plus item 1 in the first event's change (no list before it, so the hub builds it);
        // the second change comes from the cached bytes. Encoding the lists again for /events would make 6+.
        #expect(counter.count == 3)
    }

    /// Sends `count` frameworks events of about 220 bytes, then resumes a client that does not read from
    /// before them; returns it and the events' common title.
    func stalledResumer(_ hub: EventHub, _ fanout: EventFanout, after count: Int) -> (RecordingStream, String) {
        let start = hub.lastEventID
        let title = String(repeating: "x", count: 200)
        for n in 0..<count { selections.send("\(n) \(title)") }
        let stream = RecordingStream()
        stream.isStalled = true
        hub.connect(stream, topics: [.frameworks], diff: false, lastEventID: start, through: fanout)
        return (stream, title)
    }

    @Test func aResumeIsWrittenAsTheClientReadsNotCopiedInOneGo() {
        let (hub, fanout) = makeHub(cap: 1_000, window: 1_000)
        let (stream, title) = stalledResumer(hub, fanout, after: 50)
        // A window's worth (and the frame that crosses it), not the 11 KB backlog.
        #expect(stream.written.count < 1_600)
        #expect(stream.events.count < 8)
        selections.send("live")
        var rounds = 0
        while stream.events.count < 51 && rounds < 100 {
            stream.drain()
            rounds += 1
        }
        #expect(stream.events.map(\.data) == (0..<50).map { #""\#($0) \#(title)""# } + [#""live""#])
        #expect(!stream.isClosed)
        selections.send("after")
        stream.drain()
        #expect(stream.events.last?.data == #""after""#)
    }

    @Test func aResumeTheLogOutrunsIsCutOff() {
        let (hub, fanout) = makeHub(bufferCount: 20, cap: 1_000, window: 1_000)
        let (stream, _) = stalledResumer(hub, fanout, after: 10)
        #expect(!stream.isClosed)
        // 30 more events push the ones it has not read yet out of the log.
        for n in 0..<30 { selections.send("more \(n)") }
        stream.drain()
        #expect(stream.isClosed && stream.wasAborted)
        #expect(hub.clientCount == 0)
    }

    @Test func everyClientGetsTheSameFrameObjectNotACopy() {
        let (hub, fanout) = makeHub()
        let first = connect(hub, fanout, topics: [.frameworks])
        let second = connect(hub, fanout, topics: [.frameworks])
        selections.send(String(repeating: "y", count: 4_000))
        let frames = [first, second].compactMap(\.lastFrames.last)
        #expect(frames.count == 2 && frames[0] === frames[1])
    }

    @Test func theLogKeepsFewerEventsWhenTheyWouldTakeMoreThanItsBytes() {
        let (hub, fanout) = makeHub(bufferBytes: 10_000)
        let start = hub.lastEventID
        for n in 0..<100 { selections.send("\(n) \(String(repeating: "z", count: 1_000))") }
        // The first ones are gone: a resume from before them gets current values.
        #expect(connect(hub, fanout, topics: [.frameworks], lastEventID: start).events.isEmpty)
        let recent = connect(hub, fanout, topics: [.frameworks], lastEventID: hub.lastEventID - 5)
        #expect(recent.events.count == 5)
    }
}
