import Domain
import Reactive
import Testing

@testable import HTTP
@testable import Server

/// The live-query engine with a query type of its own (not the list query language: the engine is generic)
/// and recording streams, delivering at once: no sockets, no loops.
@Suite struct LiveQueryEngineTests {
    /// A schemaless-looking item: a string key, a group to filter on, a rank to sort by.
    struct Note: Equatable, Encodable, Sendable {
        var id: String
        var group: Int
        var rank: Int
    }

    /// `group == one of groups`, sorted by rank, cut to `window`.
    struct NoteQuery: LiveQuery {
        var groups: [Int]?
        var window: LiveWindow = .all

        func itemFilter() -> (Note) -> Bool {
            { note in groups.map { $0.contains(note.group) } ?? true }
        }

        func sortKey(of item: Note) -> Int { item.rank }

        func order(_ lhs: Int, _ rhs: Int) -> Int { lhs == rhs ? 0 : (lhs < rhs ? -1 : 1) }

        var indexTerms: LiveIndexTerms? {
            groups.map { LiveIndexTerms(field: "group", values: $0.map(String.init)) }
        }

        static func indexValue(of item: Note, field: String) -> String? {
            field == "group" ? String(item.group) : nil
        }
    }

    let engine = LiveQueryEngine(heartbeat: nil)
    let key = FanoutKey()

    func makeCollection() -> (LiveCollection<NoteQuery>, LiveQueryFanout<NoteQuery>) {
        let notes = engine.register("notes", query: NoteQuery.self) { "\"\($0.id)\"" }
        return (notes, notes.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared))
    }

    func connect(
        _ fanout: LiveQueryFanout<NoteQuery>, _ query: NoteQuery, key: String, lastEventID: UInt64? = nil
    ) -> RecordingStream {
        let stream = RecordingStream()
        fanout.add(stream, query: query, key: key, lastEventID: lastEventID)
        return stream
    }

    static let start = [Note(id: "a", group: 1, rank: 5), Note(id: "b", group: 2, rank: 3)]

    @Test func startsWithTheResultOfTheNewestVersionAndItsId() {
        let (notes, fanout) = makeCollection()
        notes.publish(id: 10, items: Self.start)
        let stream = connect(fanout, NoteQuery(groups: [1]), key: "g1")
        #expect(stream.text.hasPrefix("retry: 2000\n\n"))
        #expect(
            stream.events == [
                SentEvent(id: 10, name: "result", data: #"{"items":[{"group":1,"id":"a","rank":5}],"total":1}"#)
            ])
    }

    @Test func aWriteOutsideTheQuerySendsNothing() {
        let (notes, fanout) = makeCollection()
        notes.publish(id: 10, items: Self.start)
        let stream = connect(fanout, NoteQuery(groups: [1]), key: "g1")
        notes.publish(id: 11, items: [Self.start[0], Note(id: "b", group: 2, rank: 1)])
        #expect(stream.events.map(\.name) == ["result"])
    }

    @Test func anItemEnteringTheSortedWindowIsInsertedAtItsIndexAndTheOnePushedOutDeleted() {
        let (notes, fanout) = makeCollection()
        notes.publish(id: 10, items: Self.start)
        let stream = connect(fanout, NoteQuery(groups: nil, window: .range(start: 0, end: 2)), key: "top2")
        notes.publish(id: 11, items: Self.start + [Note(id: "c", group: 1, rank: 4)])
        #expect(
            stream.events.last
                == SentEvent(
                    id: 11, name: "change",
                    data: #"{"deleted":["a"],"inserted":[{"group":1,"id":"c","rank":4}],"insertedAt":[1],"total":3,"#
                        + #""updated":[],"updatedAt":[]}"#))
    }

    @Test func anItemLeavingTheFilterIsDeletedAndOneMovingIsUpdatedAtItsNewIndex() {
        let (notes, fanout) = makeCollection()
        let three = Self.start + [Note(id: "c", group: 1, rank: 9)]
        notes.publish(id: 10, items: three)
        let stream = connect(fanout, NoteQuery(groups: [1]), key: "g1")
        notes.publish(id: 11, items: [three[0], three[1], Note(id: "c", group: 1, rank: 1)])
        notes.publish(id: 12, items: [Note(id: "a", group: 2, rank: 5), three[1], Note(id: "c", group: 1, rank: 1)])
        #expect(
            stream.events.dropFirst().map(\.data) == [
                #"{"deleted":[],"inserted":[],"insertedAt":[],"total":2,"updated":[{"group":1,"id":"c","rank":1}],"#
                    + #""updatedAt":[0]}"#,
                #"{"deleted":["a"],"inserted":[],"insertedAt":[],"total":1,"updated":[],"updatedAt":[]}"#,
            ])
    }

    @Test func aWriteEvaluatesOnlyTheQueriesItsItemsFallUnder() {
        let (notes, fanout) = makeCollection()
        let items = (0..<1_000).map { Note(id: "n\($0)", group: $0, rank: $0) }
        notes.publish(id: 10, items: items)
        let streams = (0..<1_000).map { connect(fanout, NoteQuery(groups: [$0]), key: "g\($0)") }
        var changed = items
        changed[500].rank = -1
        notes.publish(id: 11, items: changed)
        #expect(fanout.groupCount == 1_000)
        #expect(fanout.lastTested == 1)
        #expect(streams[500].events.map(\.name) == ["result", "change"])
        #expect(streams[499].events.map(\.name) == ["result"])
    }

    @Test func clientsOfOneQueryShareItsGroupAndTheLastOneTakesItOut() {
        let (notes, fanout) = makeCollection()
        notes.publish(id: 10, items: Self.start)
        let first = connect(fanout, NoteQuery(groups: [1]), key: "g1")
        let second = connect(fanout, NoteQuery(groups: [1]), key: "g1")
        #expect(fanout.groupCount == 1)
        first.close()
        #expect(fanout.groupCount == 1)
        second.close()
        #expect(fanout.groupCount == 0)
    }

    @Test func aResumeGetsOneChangeSinceItsVersionOrNothing() {
        let (notes, fanout) = makeCollection()
        notes.publish(id: 10, items: Self.start)
        notes.publish(id: 11, items: Self.start + [Note(id: "c", group: 1, rank: 1)])
        notes.publish(id: 12, items: Self.start + [Note(id: "c", group: 1, rank: 1), Note(id: "d", group: 2, rank: 0)])
        let behind = connect(fanout, NoteQuery(groups: [1]), key: "g1", lastEventID: 10)
        #expect(
            behind.events == [
                SentEvent(
                    id: 12, name: "change",
                    data: #"{"deleted":[],"inserted":[{"group":1,"id":"c","rank":1}],"insertedAt":[0],"total":2,"#
                        + #""updated":[],"updatedAt":[]}"#)
            ])
        let current = connect(fanout, NoteQuery(groups: [1]), key: "g1", lastEventID: 11)
        #expect(current.events.isEmpty)
        #expect(current.text == "retry: 2000\n\n")
    }

    @Test func aResumeOlderThanTheHistoryGetsANewResult() {
        let small = LiveQueryEngine(limits: .init(historyVersions: 2), heartbeat: nil)
        let notes = small.register("notes", query: NoteQuery.self) { "\"\($0.id)\"" }
        let fanout = notes.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared)
        for id in 10...13 {
            notes.publish(id: UInt64(id), items: Self.start + [Note(id: "n\(id)", group: 3, rank: id)])
        }
        #expect(notes.historyCount == 2)
        let stream = RecordingStream()
        fanout.add(stream, query: NoteQuery(groups: [2]), key: "g2", lastEventID: 10)
        #expect(stream.events.map(\.name) == ["result"])
        #expect(stream.events.first?.id == 13)
    }

    @Test func aClientThatStopsReadingIsCutOffPastTheCapAndTheOthersOfItsQueryGetEverything() {
        let small = LiveQueryEngine(heartbeat: nil, clientCap: 1_000, clientWindow: 1_000)
        let notes = small.register("notes", query: NoteQuery.self) { "\"\($0.id)\"" }
        let fanout = notes.fanout(key: ObjectIdentifier(key), scheduler: ImmediateScheduler.shared)
        notes.publish(id: 10, items: Self.start)
        let slow = RecordingStream()
        let fast = RecordingStream()
        fanout.add(slow, query: NoteQuery(groups: [1]), key: "g1", lastEventID: nil)
        fanout.add(fast, query: NoteQuery(groups: [1]), key: "g1", lastEventID: nil)
        slow.isStalled = true
        for rank in 1...40 {
            let note = Note(id: String(repeating: "n", count: 100), group: 1, rank: rank)
            notes.publish(id: UInt64(10 + rank), items: Self.start + [note])
        }
        #expect(slow.isClosed && slow.wasAborted)
        #expect(!fast.isClosed)
        #expect(fast.events.count == 41)
        #expect(fanout.groupCount == 1)
    }

    @Test func refusesAQueryBeyondTheServersLimit() throws {
        let full = LiveQueryEngine(limits: .init(maxQueries: 1), heartbeat: nil)
        try full.checkRoom()
        full.opened()
        #expect(throws: HTTPError.self) { try full.checkRoom() }
        full.closed()
        try full.checkRoom()
    }

    @Test func shutdownEndsEveryLiveQuery() {
        let (notes, fanout) = makeCollection()
        notes.publish(id: 10, items: Self.start)
        let stream = connect(fanout, NoteQuery(groups: [1]), key: "g1")
        engine.shutdown()
        #expect(stream.isClosed)
    }
}

/// The list query language as a live query: its result is what the plain `GET` answers.
@Suite struct ListLiveQueryTests {
    static let todos = (1...9).map { Todo(id: $0, title: "Todo \(10 - $0)", completed: $0 % 2 == 0) }

    func query(_ text: String) throws -> ListLiveQuery<Todo> {
        ListLiveQuery(try ListQuery(Request(.get, "/todos?" + text).query, for: Todo.self))
    }

    @Test(arguments: [
        "completed=false&_sort=title", "_sort=completed,title&_order=desc,asc&_page=2&_limit=2",
        "title_like=^todo [1-4]&_start=1&_end=3", "q=TODO 7", "id_gte=3&id_lte=6&_limit=2",
    ])
    func evaluatesAsThePlainGetAnswers(_ text: String) throws {
        let live = try query(text)
        let plain = try live.query.apply(to: Self.todos)
        let filter = live.itemFilter()
        // The per-item parts (filter, order, window) give the same result as the whole-list answer.
        let generic = live.evaluate(Self.todos)
        #expect(generic.items == plain.items && generic.total == plain.totalCount)
        #expect(Self.todos.filter(filter).count == plain.totalCount)
    }

    @Test func isIndexedUnderItsFirstEqualityFilter() throws {
        #expect(
            try query("title_like=x&completed=true").indexTerms == LiveIndexTerms(field: "completed", values: ["true"]))
        #expect(try query("_sort=title").indexTerms == nil)
        #expect(ListLiveQuery<Todo>.indexValue(of: Self.todos[0], field: "completed") == "false")
    }
}
