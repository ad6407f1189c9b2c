import Domain
import Reactive
import StrictJSON
import Synchronization
import Testing

@testable import HTTP
@testable import Server

/// A data file collection's events: the whole list (what `/events` clients without `?diff=1` read) is encoded
/// only when a client reads it, once per version however many read it, and every client still gets each
/// version's whole list: live, resuming from the recent-events log, or connecting later.
@Suite struct EventHubDocumentsTests {
    let key = FanoutKey()

    /// The hub on a collection `posts` that holds items 1 and 2.
    private final class Fixture: Sendable {
        let posts = DocumentResource(
            name: "posts", kind: .collection, documents: [Fixture.item(1, "one"), Fixture.item(2, "two")])
        let topic = EventTopic.document("posts", index: 0, collection: true)
        let hub = EventHub(ids: EventIDSource(journalFloor: 0), heartbeat: nil)
        let fanout: EventFanout
        /// The items as the test expects them, in order.
        private let expected = Mutex<[(id: Int, title: String)]>([(1, "one"), (2, "two")])

        init(key: FanoutKey) {
            hub.attach(topic, documents: posts)
            fanout = hub.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared)
        }

        static func item(_ id: Int, _ title: String) -> StoredDocument {
            StoredDocument(id: DocumentID(.integer(Int64(id))), object: object(id, title))
        }

        static func object(_ id: Int, _ title: String) -> JSONObject {
            JSONObject(["id": .integer(Int64(id)), "title": .string(title)])
        }

        /// Commits entry `seq`: item `id` gets `title` (added at the end when new), or is deleted (nil).
        func write(_ seq: Int64, _ id: Int, _ title: String?) {
            expected.withLock { items in
                if let title {
                    if let index = items.firstIndex(where: { $0.id == id }) {
                        items[index].title = title
                    } else {
                        items.append((id, title))
                    }
                } else {
                    items.removeAll { $0.id == id }
                }
            }
            posts.committed.send(
                DocumentEntry(
                    seq: seq, resource: "posts", id: DocumentID(.integer(Int64(id))),
                    document: title.map { Self.object(id, $0) }))
        }

        /// The whole list's JSON as it is now, built from the items' own bytes (not by the resource).
        var list: String {
            let items = expected.withLock { $0 }.map { Self.item($0.id, $0.title).bytes }
            return "[" + items.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",") + "]"
        }

        func connect(diff: Bool, after lastEventID: UInt64? = nil) -> RecordingStream {
            let stream = RecordingStream()
            hub.connect(stream, topics: [topic], diff: diff, lastEventID: lastEventID, through: fanout)
            return stream
        }
    }

    @Test func aWriteNoClientReadsWholeEncodesNoList() {
        let fixture = Fixture(key: key)
        for seq in Int64(1)...3 { fixture.write(seq, Int(seq) + 2, "new \(seq)") }
        fixture.write(4, 1, "changed")
        fixture.write(5, 2, nil)
        #expect(fixture.posts.encodingCount == 0)

        // A `?diff=1` client reads the list once, when it connects, then the changes alone.
        let diffClient = fixture.connect(diff: true)
        #expect(diffClient.events.map(\.data) == [fixture.list])
        let afterConnect = fixture.posts.encodingCount
        fixture.write(6, 3, "again")
        fixture.write(7, 6, "six")
        #expect(fixture.posts.encodingCount == afterConnect)
        #expect(diffClient.events.count == 3)
        #expect(diffClient.events.last?.data.hasPrefix(#"{"inserted":["#) == true)
    }

    @Test func clientsWithoutDiffShareOneEncodingOfEachVersion() {
        let fixture = Fixture(key: key)
        let first = fixture.connect(diff: false)
        let second = fixture.connect(diff: false)
        let start = fixture.posts.encodingCount
        var lists: [String] = [fixture.list]
        for seq in Int64(1)...4 {
            fixture.write(seq, seq == 4 ? 1 : Int(seq) + 2, seq == 4 ? nil : "new \(seq)")
            lists.append(fixture.list)
        }
        #expect(fixture.posts.encodingCount == start + 4)
        #expect(first.events.map(\.data) == lists)
        #expect(second.events == first.events)
        #expect(first.events.map(\.id) == [0, 1, 2, 3, 4].map { max(1, $0 * EventIDSource.journalBlock) })
    }

    @Test func aResumeAfterWritesNoClientReadGetsEachVersionsWholeList() {
        let fixture = Fixture(key: key)
        let before = fixture.connect(diff: false)
        fixture.write(1, 3, "three")
        let lastSeen = before.events.last?.id
        #expect(lastSeen == EventIDSource.journalBlock)
        before.close()
        var lists: [String] = []
        for seq in Int64(2)...4 {
            fixture.write(seq, seq == 3 ? 1 : Int(seq) + 2, seq == 3 ? "changed" : "new \(seq)")
            lists.append(fixture.list)
        }
        fixture.write(5, 2, nil)
        lists.append(fixture.list)
        let encodedBefore = fixture.posts.encodingCount
        let resumed = fixture.connect(diff: false, after: lastSeen)
        #expect(resumed.events.map(\.data) == lists)
        #expect(resumed.events.map(\.id) == [2, 3, 4, 5].map { $0 * EventIDSource.journalBlock })
        #expect(fixture.posts.encodingCount == encodedBefore + 4)
        // Another resume from the same id shares the frames made for the first.
        let again = fixture.connect(diff: false, after: lastSeen)
        #expect(again.events == resumed.events)
        #expect(fixture.posts.encodingCount == encodedBefore + 4)
        // A client that connects later gets the list as it is now, with the newest event's id.
        let later = fixture.connect(diff: false)
        #expect(later.events.map(\.data) == [fixture.list])
        #expect(later.events.map(\.id) == [5 * EventIDSource.journalBlock])
    }
}
