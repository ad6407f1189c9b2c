import Foundation
import Reactive
import ReactiveTesting
import Testing

@testable import HTTP
@testable import Server

/// Live queries end to end on one loop (`LiveCollection` → `LiveQueryFanout` → `EventClient` → a stream):
/// random writes published in bursts that the loop takes together or one by one, clients joining and
/// resuming at random moments, windows that run short and are read anew. After each turn of the loop every
/// client, applying the events it was sent, holds what its query answers over the collection then.
@Suite struct LiveQueryFanoutModelTests {
    typealias Row = LiveRankingTests.Row
    typealias RowQuery = LiveRankingTests.RowQuery

    /// A row as JSON: `[id,group,a,b]`.
    static func json(_ row: Row) -> [UInt8] { Array("[\(row.id),\(row.group),\(row.a),\(row.b)]".utf8) }

    /// One client: its query, its stream, what it holds from the events read so far.
    final class Client {
        let query: RowQuery
        let key: String
        var stream: RecordingStream
        /// Bytes of `stream` read.
        var read = 0
        var held: [[Int]] = []
        var total = 0
        var lastID: UInt64?

        init(query: RowQuery, key: String, stream: RecordingStream) {
            self.query = query
            self.key = key
            self.stream = stream
        }

        /// The whole events written after the bytes read so far (`read`), parsed as a browser would.
        private func newEvents() -> [SentEvent] {
            let bytes = stream.written[read...]
            guard let end = String(decoding: bytes, as: UTF8.self).range(of: "\n\n", options: .backwards) else {
                return []
            }
            let text = String(decoding: bytes, as: UTF8.self)[..<end.upperBound]
            read += text.utf8.count
            return text.components(separatedBy: "\n\n").compactMap { block in
                var event = SentEvent()
                for line in block.split(separator: "\n") {
                    if line.hasPrefix("id: ") { event.id = UInt64(line.dropFirst(4)) }
                    if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { event.data += String(line.dropFirst(6)) }
                }
                return event.id != nil ? event : nil
            }
        }

        /// Applies the events not read yet, as docs/api.md tells a client to.
        func catchUp() throws {
            for event in newEvents() {
                let data = try #require(
                    try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
                if event.name == "result" {
                    held = try #require(data["items"] as? [[Int]])
                } else {
                    let deleted = Set(try #require(data["deleted"] as? [Int]))
                    let inserted = try #require(data["inserted"] as? [[Int]])
                    let updated = try #require(data["updated"] as? [[Int]])
                    let insertedAt = try #require(data["insertedAt"] as? [Int])
                    let updatedAt = try #require(data["updatedAt"] as? [Int])
                    let gone = deleted.union(updated.map { $0[0] })
                    held.removeAll { gone.contains($0[0]) }
                    let placed = zip(inserted, insertedAt).map { ($0, $1) } + zip(updated, updatedAt).map { ($0, $1) }
                    for (item, index) in placed.sorted(by: { $0.1 < $1.1 }) { held.insert(item, at: index) }
                }
                total = try #require(data["total"] as? Int)
                lastID = event.id
            }
        }
    }

    @Test(arguments: 1...6)
    func everyClientHoldsTheFreshResultAfterEachTurnOfTheLoop(seed: UInt64) throws {
        let loop = TestSchedulerOf<DispatchQueue>(now: DispatchQueue.SchedulerTimeType(.init(uptimeNanoseconds: 1)))
        let key = FanoutKey()
        // A margin of 1: bounded windows run short and read their items anew often.
        let engine = LiveQueryEngine(limits: .init(historyVersions: 16, windowMargin: 1), heartbeat: nil)
        let rows = engine.register(
            "rows", query: RowQuery.self, key: LiveRankingTests.key, encode: Self.json)
        let fanout = rows.fanout(key: ObjectIdentifier(key), scheduler: loop)
        var random = LiveRankingTests.RandomRows(seed: seed)
        var mirror = LiveMirror(items: (0..<12).map { _ in random.row() }, key: LiveRankingTests.key)
        rows.publish(id: 1, items: mirror.entries.map(\.item))
        loop.advance()
        let queries = (0..<10).map { _ in LiveRankingTests.randomQuery(&random.rng) }
        var clients: [Client] = []
        var id: UInt64 = 1
        var batches = Set<Int>()
        for step in 1...200 {
            // A burst of one to four writes, recorded before the loop's next turn.
            for _ in 0..<Int.random(in: 1...4, using: &random.rng) {
                let edit = random.edit(of: mirror, kept: 4)
                guard mirror.apply(edit, key: LiveRankingTests.key) != nil else { continue }
                id += 1
                rows.publish(id: id, edits: [edit])
            }
            // Now and then a client joins (while writes wait for the loop) or one comes back with its last id.
            if Int.random(in: 0..<6, using: &random.rng) == 0 {
                let index = Int.random(in: 0..<queries.count, using: &random.rng)
                let client = Client(query: queries[index], key: "q\(index)", stream: RecordingStream())
                fanout.add(client.stream, query: client.query, key: client.key, lastEventID: nil)
                clients.append(client)
            }
            if Int.random(in: 0..<5, using: &random.rng) == 0, let client = clients.randomElement(using: &random.rng) {
                try client.catchUp()
                client.stream.close()
                client.stream = RecordingStream()
                client.read = 0
                fanout.add(client.stream, query: client.query, key: client.key, lastEventID: client.lastID)
            }
            // The loop turns only now and then: bursts pile up in the inbox.
            guard Int.random(in: 0..<3, using: &random.rng) != 0 || step == 200 else { continue }
            loop.advance()
            batches.insert(fanout.lastBatch)
            let items = mirror.entries.map(\.item)
            for (number, client) in clients.enumerated() {
                try client.catchUp()
                let fresh = client.query.evaluate(items)
                #expect(
                    client.held == fresh.items.map { [$0.id, $0.group, $0.a, $0.b] },
                    "seed \(seed), step \(step), client \(number) (\(client.key))")
                #expect(client.total == fresh.total, "seed \(seed), step \(step), client \(number)")
            }
        }
        // Some turns took several versions at once.
        #expect(batches.contains { $0 > 1 })
    }
}
