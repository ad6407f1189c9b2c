import Reactive
import Support
import Testing

@testable import HTTP

/// The entity tag a `ListEncoder` keeps from each change (`ListDigest`): the same bytes have the same tag
/// however the list was reached (so on another instance and after a restart, which reach it another way),
/// and different bytes never share one, so `If-None-Match` answers `304` exactly when the body is the same.
struct ListDigestTests {
    private struct Row: Codable, Equatable, Identifiable, Sendable {
        var id: Int
        var title: String
        var completed = false
    }

    @Test func theTagFollowsTheBytesWhicheverWayTheListWasReached() throws {
        // Few ids and titles, so that lists come back: a tag seen before must name the bytes it named then.
        // Inserts, updates and deletes given with their change (every seventh one wrong, found by comparing),
        // and reorders and whole lists given without one.
        let encoder = ListEncoder<[Row]>()
        var random = SeededRandom(seed: 7)
        var list: [Row] = []
        var bodies: [String: [UInt8]] = [:]
        var tags: [[UInt8]: String] = [:]
        for step in 0..<1500 {
            var change: ListChange<Row>?
            let position = list.isEmpty ? 0 : Int.random(in: 0..<list.count, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2 where list.count < 8:
                let id = (1...9).first { id in !list.contains { $0.id == id } }!
                let row = Row(id: id, title: ["a", "b"].randomElement(using: &random)!)
                list.insert(row, at: position)
                change = .inserted(row, at: position)
            case 3...5 where !list.isEmpty:
                list[position].completed.toggle()
                change = .updated(list[position], at: position)
            case 6...7 where !list.isEmpty:
                change = .deleted(list.remove(at: position), at: position)
            case 8:
                list.shuffle(using: &random)
            default:
                change = .unchanged
            }
            if step % 7 == 6, case .updated(let row, _) = change { change = .updated(row, at: list.count) }
            let encoded = try encoder.encode(list, change: change)
            let tag = try #require(encoded.tag)
            #expect(tag == (try ListEncoder<[Row]>().encode(list).tag), "step \(step): another way to the same list")
            if let known = bodies[tag] { #expect(known == encoded.bytes, "step \(step): one tag, two bodies") }
            if let known = tags[encoded.bytes] { #expect(known == tag, "step \(step): one body, two tags") }
            bodies[tag] = encoded.bytes
            tags[encoded.bytes] = tag
        }
        #expect(bodies.count > 100)
    }

    @Test func aTitleChangedToOneOfTheSameLengthChangesTheTag() throws {
        let encoder = ListEncoder<[Row]>()
        var list = (1...1000).map { Row(id: $0, title: "Buy milk") }
        let before = try #require(try encoder.encode(list).tag)
        list[500].title = "Buy eggs"
        let after = try #require(try encoder.encode(list, change: .updated(list[500], at: 500)).tag)
        #expect(after != before)
        list[500].title = "Buy milk"
        #expect(try encoder.encode(list, change: .updated(list[500], at: 500)).tag == before)
    }

    @Test func aListHoldingAnIdTwiceLeavesTheTagToTheBodysChecksum() throws {
        let encoder = ListEncoder<[Row]>()
        let list = [Row(id: 1, title: "a"), Row(id: 2, title: "b")]
        #expect(try encoder.encode(list + list).tag == nil)
        #expect(try encoder.encode(list).tag == (try ListEncoder<[Row]>().encode(list).tag))
    }

    @Test func theSnapshotsResponseCarriesTheListsTag() throws {
        let subject = CurrentValueSubject<[Row], Never>([Row(id: 1, title: "a")])
        let snapshot = EncodedSnapshot(identifiedList: subject)
        subject.send([Row(id: 1, title: "a"), Row(id: 2, title: "b")])
        let tag = try #require(try ListEncoder<[Row]>().encode(subject.value).tag)
        #expect(snapshot.response?.prepared?.etag == tag)
    }
}

/// A small deterministic generator (SplitMix64), so a failing step can be run again.
private struct SeededRandom: RandomNumberGenerator {
    var seed: UInt64

    mutating func next() -> UInt64 {
        seed &+= 0x9E37_79B9_7F4A_7C15
        var value = seed
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
