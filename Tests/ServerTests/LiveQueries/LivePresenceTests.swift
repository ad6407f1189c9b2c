import Domain
import Foundation
import Reactive
import ReactiveTesting
import StrictJSON
import Testing

@testable import HTTP
@testable import Server

/// A data file's live query leaves out a `field=value` filter only while no item has the field, as the plain
/// `GET` does, at every version: the first item to gain the field makes the query filter by it, and the
/// last to lose it makes the query ignore it again.
@Suite struct LivePresenceTests {
    let key = FanoutKey()
    let loop = TestSchedulerOf<DispatchQueue>(now: DispatchQueue.SchedulerTimeType(.init(uptimeNanoseconds: 1)))

    static func post(_ id: Int, _ members: [String: JSONValue] = [:]) -> StoredDocument {
        var object = JSONObject()
        object["id"] = .integer(Int64(id))
        for (name, value) in members { object[name] = value }
        return StoredDocument(id: DocumentID(.integer(Int64(id))), object: object)
    }

    static let posts = (1...4).map { post($0) }

    /// The four posts, shown by event 10.
    func collection() -> LiveCollection<DocumentLiveQuery> {
        let posts = LiveQueryEngine(heartbeat: nil).register(
            "posts", query: DocumentLiveQuery.self, key: { String(decoding: $0.id!.value.compactBytes, as: UTF8.self) },
            encode: { $0.bytes })
        posts.publish(id: 10, items: Self.posts)
        return posts
    }

    /// The ids the client holds after applying each event (`LiveClient`'s rule).
    static func held(_ stream: RecordingStream) -> [String] {
        var items: [String] = []
        for event in stream.events {
            let body = (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: Any] ?? [:]
            let id = { (item: Any) in String(describing: (item as? [String: Any])?["id"] ?? "") }
            if event.name == "result" {
                items = (body["items"] as? [Any] ?? []).map(id)
                continue
            }
            let deleted = Set((body["deleted"] as? [Any] ?? []).map { String(describing: $0) })
            items.removeAll { deleted.contains($0) }
            let inserted = body["inserted"] as? [Any] ?? []
            for (item, at) in zip(inserted, body["insertedAt"] as? [Int] ?? []) { items.insert(id(item), at: at) }
        }
        return items
    }

    @Test func aFieldThatComesAndGoesIsFilteredByOnlyWhileSomeItemHasIt() throws {
        let posts = collection()
        let fanout = posts.fanout(key: ObjectIdentifier(key), scheduler: loop)
        let query = DocumentLiveQuery(query: try DocumentQuery(Request(.get, "/posts?flag=on").query))
        #expect(query.presenceFields == ["flag"])
        let stream = RecordingStream()
        fanout.add(stream, query: query, key: "flag=on", lastEventID: nil)
        #expect(Self.held(stream) == ["1", "2", "3", "4"])

        posts.publish(id: 11, edits: [.put(Self.post(2, ["flag": .string("on")]))])
        loop.advance()
        #expect(Self.held(stream) == ["2"])
        // A write after the change of presence cannot be rewound to one before it: a resume gets a result.
        #expect(posts.changes(after: 10, through: 11) == nil)

        posts.publish(id: 12, edits: [.put(Self.post(3, ["flag": .string("off")]))])
        posts.publish(id: 13, edits: [.put(Self.post(5, ["flag": .string("on")]))])
        loop.advance()
        #expect(Self.held(stream) == ["2", "5"])
        #expect(posts.changes(after: 11, through: 13)?.count == 2)

        // The field leaves one item: another still has it.
        posts.publish(id: 14, edits: [.put(Self.post(2))])
        loop.advance()
        #expect(Self.held(stream) == ["5"])
        posts.publish(id: 15, edits: [.remove(key: "5")])
        posts.publish(id: 16, edits: [.put(Self.post(3))])
        loop.advance()
        #expect(Self.held(stream) == ["1", "2", "3", "4"])
        #expect(stream.events.map(\.id) == [10, 11, 13, 14, 15, 16])
    }

    @Test func aNewGroupReadsThePresenceAtItsVersion() throws {
        let posts = collection()
        let fanout = posts.fanout(key: ObjectIdentifier(key), scheduler: loop)
        posts.publish(id: 11, edits: [.put(Self.post(4, ["flag": .string("on")]))])
        let stream = RecordingStream()
        let query = DocumentLiveQuery(query: try DocumentQuery(Request(.get, "/posts?flag=on").query))
        fanout.add(stream, query: query, key: "flag=on", lastEventID: nil)
        #expect(Self.held(stream) == ["4"])
        loop.advance()
        posts.publish(id: 12, edits: [.put(Self.post(4))])
        loop.advance()
        #expect(Self.held(stream) == ["1", "2", "3", "4"])
    }
}
