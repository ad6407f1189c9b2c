import Reactive
import Support
import Synchronization
import Testing

@testable import HTTP
@testable import Server

/// A list topic fed with the view model's carrier (`Versioned` with a `ListChange`): a write costs its change
/// in the snapshot's encoder and the hub, whatever the list's size. Items count their comparisons and
/// encodings, so a whole-list comparison (the path taken when a list comes without its change) shows.
@Suite struct EventHubChangeTests {
    /// Counts comparisons and encodings of `Row`s.
    private final class Counter: Sendable {
        private let counts = Mutex((comparisons: 0, encodings: 0))
        var comparisons: Int { counts.withLock { $0.comparisons } }
        var encodings: Int { counts.withLock { $0.encodings } }
        func compared() { counts.withLock { $0.comparisons += 1 } }
        func encoded() { counts.withLock { $0.encodings += 1 } }
    }

    /// A todo-shaped item that counts how often it is compared and encoded.
    private struct Row: Encodable, Identifiable, Equatable, Sendable {
        let id: Int
        var title: String
        let counter: Counter

        func encode(to encoder: any Encoder) throws {
            counter.encoded()
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(title, forKey: .title)
        }

        enum CodingKeys: String, CodingKey { case id, title }

        static func == (lhs: Row, rhs: Row) -> Bool {
            lhs.counter.compared()
            return lhs.id == rhs.id && lhs.title == rhs.title
        }
    }

    private typealias Version = Versioned<[Row], ListChange<Row>>

    /// The hub on a snapshot of `list`, with what reaches the live queries recorded.
    private final class Fixture: Sendable {
        let subject: CurrentValueSubject<Version, Never>
        let snapshot: EncodedSnapshot<[Row], ListChange<Row>>
        let hub = EventHub(ids: EventIDSource(journalFloor: 0), heartbeat: nil)
        /// The change of each version the live queries received.
        var live: [ListChange<Row>?] { received.withLock { $0 } }
        private let received = Mutex<[ListChange<Row>?]>([])

        init(_ list: [Row]) {
            subject = CurrentValueSubject(Versioned(seq: nil, change: nil, list))
            snapshot = EncodedSnapshot(versionedList: subject)
            hub.attach(.todos, collection: snapshot) { [unowned self] _, version in
                received.withLock { $0.append(version.change) }
            }
        }

        /// Applies `change` as the view model does, with the journal id `seq`.
        func write(_ seq: Int64, _ change: ListChange<Row>) {
            var list = subject.value.value
            switch change {
            case .inserted(let row, let index): list.insert(row, at: index)
            case .updated(let row, let index): list[index] = row
            case .deleted(_, let index): list.remove(at: index)
            case .unchanged: break
            }
            subject.send(Versioned(seq: seq, change: change, list))
        }

        /// The `?diff=1` data of the newest event.
        var lastDiff: String? {
            let page = hub.readLog(after: hub.lastEventID - 1, topics: [.todos], diff: true, maxBytes: 1 << 20)
            return page?.frames.last.map { String(decoding: $0.bytes, as: UTF8.self) }
        }
    }

    @Test(arguments: [100, 10_000])
    func aWriteCarriedAsItsChangeComparesAndEncodesOneItemAtAnySize(count: Int) throws {
        let counter = Counter()
        let fixture = Fixture((1...count).map { Row(id: $0, title: "todo \($0)", counter: counter) })
        let middle = count / 2
        let writes: [ListChange<Row>] = [
            .inserted(Row(id: count + 1, title: "new", counter: counter), at: count),
            .updated(Row(id: middle, title: "renamed", counter: counter), at: middle - 1),
            .deleted(Row(id: middle + 1, title: "todo \(middle + 1)", counter: counter), at: middle),
            .unchanged,
        ]
        let expected = [
            #"{"deleted":[],"inserted":[{"id":\#(count + 1),"title":"new"}],"updated":[]}"#,
            #"{"deleted":[],"inserted":[],"updated":[{"id":\#(middle),"title":"renamed"}]}"#,
            #"{"deleted":[\#(middle + 1)],"inserted":[],"updated":[]}"#,
            #"{"deleted":[],"inserted":[],"updated":[]}"#,
        ]
        for (offset, write) in writes.enumerated() {
            let before = (counter.comparisons, counter.encodings)
            fixture.write(Int64(offset + 1), write)
            // NB: an update compares its item with the one it replaces (a write of the same value is no
            // update); comparing the lists would cost a comparison per row.
            #expect(counter.comparisons - before.0 <= 1, "write \(offset)")
            #expect(counter.encodings - before.1 <= 1, "write \(offset)")
            #expect(fixture.lastDiff?.hasSuffix("data: \(expected[offset])\n\n") == true, "write \(offset)")
            #expect(fixture.hub.lastEventID == UInt64(offset + 1) * EventIDSource.journalBlock)
        }
        #expect(fixture.snapshot.bytes == (try JSONCoding.encode(fixture.subject.value.value)))
        #expect(fixture.live == [nil] + writes)
    }

    @Test func theSameWriteWithoutItsChangeComparesTheLists() {
        // What the carrier saves: the list alone (as before the change was carried) costs a comparison per row.
        let counter = Counter()
        let fixture = Fixture((1...1000).map { Row(id: $0, title: "todo \($0)", counter: counter) })
        var list = fixture.subject.value.value
        list.append(Row(id: 1001, title: "new", counter: counter))
        let before = counter.comparisons
        fixture.subject.send(Versioned(seq: 1, change: nil, list))
        #expect(counter.comparisons - before >= 1000)
        #expect(fixture.lastDiff?.contains(#""inserted":[{"id":1001,"title":"new"}]"#) == true)
    }
}
