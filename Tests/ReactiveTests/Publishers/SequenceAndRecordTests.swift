import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct SequenceAndRecordTests {
    @Test func sequenceHonoursDemand() {
        let tracker = (1...5).publisher.track(initialDemand: .max(2))
        #expect(tracker.values == [1, 2])
        tracker.request(.unlimited)
        #expect(tracker.events.last == .finished)
        #expect(tracker.values == [1, 2, 3, 4, 5])
    }

    @Test func sequenceStopsWhenCancelledMidStream() {
        var tracker: TrackingSubscriber<Int, Never>?
        tracker = TrackingSubscriber(onValue: { value in if value == 3 { tracker?.cancel() } })
        (1...100).publisher.subscribe(tracker!)
        #expect(tracker?.events == [.subscription, .value(1), .value(2), .value(3)])
    }

    @Test func recordPlaysBack() {
        let record = Record<Int, TestError> { recording in
            recording.receive(1)
            recording.receive(2)
            recording.receive(completion: .failure(TestError()))
        }
        #expect(record.track().events == [.subscription, .value(1), .value(2), .failure("TestError(1)")])
    }
}

/// How a sequence's and a record's subscriptions describe themselves, as OpenCombine's suite (run against
/// Combine) records.
@Suite struct SequenceSubscriptionDescriptionTests {
    @Test func aSequenceSubscriptionIsDescribedByItsSequenceUntilItEnds() throws {
        let tracker = (1...2).publisher.track(initialDemand: .none)
        let subscription = try #require(tracker.subscription)
        #expect(String(describing: subscription) == "1...2")
        let mirror = try #require((subscription as? any CustomReflectable)?.customMirror)
        #expect(mirror.children.map { "\($0.label ?? ""): \($0.value)" } == ["sequence: 1...2"])
        tracker.request(.max(3))
        #expect(String(describing: subscription) == "Sequence")
    }

    @Test func aRecordSubscriptionMirrorsItsCompletionAndIsCancelledEventsOnceDone() throws {
        let tracker = Record<Int, TestError>(output: [1, 2], completion: .failure(TestError())).track(
            initialDemand: .none)
        let subscription = try #require(tracker.subscription)
        #expect(String(describing: subscription) == "[1, 2]")
        let labels = (subscription as? any CustomReflectable)?.customMirror.children.map(\.label)
        #expect(labels == ["sequence", "completion"])
        tracker.cancel()
        #expect(String(describing: subscription) == "Cancelled Events")
        let after = (subscription as? any CustomReflectable)?.customMirror.children.map { "\($0.value)" }
        #expect(after?.first == "[]")
    }

    @Test func prependingToACollectionCountsItToReserveRoomFirst() {
        let base = CountingCollection([3, 4])
        #expect(base.publisher.prepend(1, 2).sequence.elements == [1, 2, 3, 4])
        #expect(base.log == ["count", "makeIterator"])
    }
}

/// A collection that records the requirements a caller uses.
private struct CountingCollection: RangeReplaceableCollection {
    final class Log {
        var calls: [String] = []
    }

    var elements: [Int]
    let recorder = Log()
    var log: [String] { recorder.calls }

    init() { elements = [] }
    init(_ elements: [Int]) { self.elements = elements }

    var startIndex: Int { elements.startIndex }
    var endIndex: Int { elements.endIndex }
    var count: Int {
        recorder.calls.append("count")
        return elements.count
    }
    subscript(position: Int) -> Int { elements[position] }
    func index(after index: Int) -> Int { index + 1 }
    func makeIterator() -> IndexingIterator<[Int]> {
        recorder.calls.append("makeIterator")
        return elements.makeIterator()
    }
    mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Int {
        elements.replaceSubrange(subrange, with: newElements)
    }
}

/// `Record` and its `Recording` are `Codable` as in Combine: the record under `recording`, the recording as
/// `output` and `completion`; a decoded record plays back the same events.
@Suite struct RecordCodableTests {
    struct CodableError: Error, Codable, Equatable {
        var reason: String
    }

    @Test func aRecordRoundTripsThroughJSONAndPlaysBackTheSame() throws {
        let record = Record<Int, CodableError>(output: [1, 2, 3], completion: .failure(CodableError(reason: "x")))
        let data = try JSONEncoder().encode(record)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let recording = try #require(object["recording"] as? [String: Any])
        #expect(recording["output"] as? [Int] == [1, 2, 3])
        #expect(recording["completion"] != nil)
        let decoded = try JSONDecoder().decode(Record<Int, CodableError>.self, from: data)
        #expect(decoded.recording.output == [1, 2, 3])
        #expect(decoded.track().events == record.track().events)
    }

    @Test func aDecodedRecordingIsCompleteAndAFinishedOneRoundTrips() throws {
        var recording = Record<String, CodableError>.Recording()
        recording.receive("a")
        recording.receive(completion: .finished)
        let data = try JSONEncoder().encode(recording)
        let decoded = try JSONDecoder().decode(Record<String, CodableError>.Recording.self, from: data)
        #expect(decoded.output == ["a"])
        #expect(Record(recording: decoded).track().events == [.subscription, .value("a"), .finished])
    }

    @Test func aRecordingMadeInTheClosureKeepsItsOrder() {
        let record = Record<Int, Never> { recording in
            for value in [3, 1, 2] { recording.receive(value) }
            recording.receive(completion: .finished)
        }
        #expect(record.recording.output == [3, 1, 2])
        #expect(record.recording.completion == .finished)
    }
}
