import Foundation
import Reactive
import Support
import Testing

@testable import HTTP
@testable import Server

/// `EventHub.replaying`: a restarted server sends its newest entries through its view models again, so their
/// events take their entries' ids and a `Last-Event-ID` from before the restart resumes from the log.
@Suite struct EventHubReplayTests {
    let key = FanoutKey()
    let block = EventIDSource.journalBlock

    @Test func replayedEntriesTakeTheirIdsAndWhatTheyReplacedIsNoEvent() {
        // The first run: entries 5 and 6 made the lists [1, 2] and [1, 2, 3]; the store holds entry 7 (frameworks).
        let todos = CurrentValueSubject<Versioned<[Item], Never>, Never>(
            Versioned(seq: nil, [Item(id: 1, title: "Buy Milk")]))
        let image = CurrentValueSubject<String?, Never>("before the restart")
        let hub = EventHub(ids: EventIDSource(journalFloor: 4 * block), heartbeat: nil)
        hub.replaying(after: 4 * block, last: 7 * block) {
            hub.attach(.todos, versioned: todos)
            hub.attach(.image, optional: image)
            todos.send(Versioned(seq: 5, [Item(id: 1, title: "Buy Milk"), Item(id: 2, title: "Two")]))
            todos.send(Versioned(seq: 6, (1...3).map { Item(id: $0, title: $0 == 1 ? "Buy Milk" : "x") }))
        }
        let fanout = hub.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared)
        let resumed = RecordingStream()
        hub.connect(resumed, topics: [.todos, .image], diff: false, lastEventID: 5 * block, through: fanout)
        // The entry after the client's, with its id, then the image no entry replaced, numbered after entry 7;
        // the list before entry 5 was no event of this run.
        #expect(resumed.events.map(\.id) == [6 * block, 7 * block + 1])
        #expect(resumed.events.map(\.name) == ["todos", "image"])
        let first = RecordingStream()
        hub.connect(first, topics: [.todos, .image], diff: false, lastEventID: nil, through: fanout)
        #expect(first.events.map(\.id) == [6 * block, 7 * block + 1])
        todos.send(Versioned(seq: nil, []))
        #expect(resumed.events.last?.id == 7 * block + 2)
    }
}
