import Foundation
import Reactive
import Synchronization
import Testing

@testable import HTTP

/// `EncodedSnapshot`: encodes once per emission, not per read.
@Suite struct EncodedSnapshotTests {
    /// Counts how often it is encoded.
    private final class Counted: Encodable, Sendable {
        let encodings = Counter()
        func encode(to encoder: any Encoder) throws {
            encodings.increment()
            var container = encoder.singleValueContainer()
            try container.encode("v")
        }
    }

    private final class Counter: Sendable {
        private let value = Mutex(0)
        func increment() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    @Test func encodesEachEmissionOnceWhateverTheNumberOfReads() throws {
        let value = Counted()
        let subject = CurrentValueSubject<Counted, Never>(value)
        let snapshot = EncodedSnapshot(subject)
        for _ in 0..<100 { _ = snapshot.response }
        #expect(value.encodings.count == 1)
        subject.send(value)
        for _ in 0..<100 { _ = snapshot.bytes }
        #expect(value.encodings.count == 2)
        #expect(snapshot.bytes == Array(#""v""#.utf8))
        #expect(snapshot.response?.headers["Content-Type"] == "application/json; charset=utf-8")
    }

    @Test func listSnapshotsCarryTheTotalCountAndStopWhenCancelled() {
        let subject = CurrentValueSubject<[Int], Never>([1, 2, 3])
        let snapshot = EncodedSnapshot(list: subject)
        #expect(snapshot.response?.headers["X-Total-Count"] == "3")
        #expect(snapshot.response?.body == Array("[1,2,3]".utf8))
        snapshot.cancel()
        subject.send([])
        #expect(snapshot.bytes == Array("[1,2,3]".utf8))
    }

    @Test func isEmptyBeforeAPassthroughEmits() {
        let subject = PassthroughSubject<[Int], Never>()
        let snapshot = EncodedSnapshot(list: subject)
        #expect(snapshot.current == nil)
        subject.send([7])
        #expect(snapshot.bytes == Array("[7]".utf8))
    }
}
