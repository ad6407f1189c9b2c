import Reactive
import Testing

/// Operators on `Just` and `Publishers.Sequence` return Combine's specialised types (the annotations below
/// only compile if they do), computed when the operator is applied, and publish what the general operators
/// would.
@Suite struct SpecialisedOperatorTests {
    @Test func justMapsToJustAndRunsTheTransformAtOnce() {
        var calls = 0
        let mapped: Just<String> = Just(2).map { value in
            calls += 1
            return "\(value)"
        }
        #expect(calls == 1)
        #expect(mapped.output == "2")
        #expect(mapped.track().events == [.subscription, .value("2"), .finished])
    }

    @Test func justOperatorsWithAnAnswerGiveJust() {
        let collected: Just<[Int]> = Just(1).collect()
        let counted: Just<Int> = Just(1).count()
        let contained: Just<Bool> = Just(3).contains(3)
        let satisfied: Just<Bool> = Just(3).allSatisfy { $0 > 5 }
        let smallest: Just<Int> = Just(3).min()
        let retried: Just<Int> = Just(3).retry(2)
        #expect(collected.output == [1])
        #expect(counted.output == 1)
        #expect(contained.output)
        #expect(!satisfied.output)
        #expect(smallest.output == 3)
        #expect(retried.output == 3)
    }

    @Test func justFilteringGivesAnOptionalPublisher() {
        let kept: Optional<Int>.Publisher = Just(4).filter { $0.isMultiple(of: 2) }
        let dropped: Optional<Int>.Publisher = Just(5).filter { $0.isMultiple(of: 2) }
        let compacted: Optional<Int>.Publisher = Just("7").compactMap { Int($0) }
        let skipped: Optional<Int>.Publisher = Just(1).dropFirst()
        let first: Optional<Int>.Publisher = Just(1).prefix(1)
        let atZero: Optional<Int>.Publisher = Just(1).output(at: 0)
        #expect(kept.track().events == [.subscription, .value(4), .finished])
        #expect(dropped.track().events == [.subscription, .finished])
        #expect(compacted.output == 7)
        #expect(skipped.output == nil)
        #expect(first.output == 1)
        #expect(atZero.output == 1)
        #expect(Just(1).output(in: 1..<3).output == nil)
    }

    @Test func justThrowingOperatorsGiveAResultPublisher() {
        let mapped: Result<Int, any Error>.Publisher = Just(1).tryMap { _ in throw TestError(code: 3) }
        #expect(mapped.track().events == [.subscription, .failure("TestError(3)")])
        let typed: Result<Int, TestError>.Publisher = Just(1).setFailureType(to: TestError.self)
        #expect(typed.track().events == [.subscription, .value(1), .finished])
        let reduced: Result<Int, Never>.Publisher = Just(4).reduce(10, +)
        #expect(reduced.track().values == [14])
    }

    @Test func justAppendAndPrependGiveASequence() {
        let appended: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3)
        let prepended: Publishers.Sequence<[Int], Never> = Just(1).prepend([-1, 0])
        #expect(appended.sequence == [1, 2, 3])
        #expect(prepended.track().values == [-1, 0, 1])
        let ignored: Empty<Int, Never> = Just(1).ignoreOutput()
        #expect(ignored.track().events == [.subscription, .finished])
    }

    @Test func sequenceOperatorsGiveASequenceComputedAtOnce() {
        let mapped: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.map { $0 * 10 }
        #expect(mapped.sequence == [10, 20, 30])
        let filtered: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4].publisher.filter { $0.isMultiple(of: 2) }
        #expect(filtered.sequence == [2, 4])
        let compacted: Publishers.Sequence<[Int], Never> = ["1", "x", "3"].publisher.compactMap { Int($0) }
        #expect(compacted.sequence == [1, 3])
        let scanned: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.scan(0, +)
        #expect(scanned.sequence == [1, 3, 6])
        let unique: Publishers.Sequence<[Int], Never> = [1, 1, 2, 1].publisher.removeDuplicates()
        #expect(unique.sequence == [1, 2, 1])
        let typed: Publishers.Sequence<[Int], TestError> = [1].publisher.setFailureType(to: TestError.self)
        #expect(typed.track().events == [.subscription, .value(1), .finished])
    }

    @Test func sequenceDropFirstAndPrefixStayLazyWrappers() {
        let dropped: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = [1, 2, 3].publisher.dropFirst()
        let prefixed: Publishers.Sequence<PrefixSequence<[Int]>, Never> = [1, 2, 3].publisher.prefix(2)
        #expect(dropped.track().values == [2, 3])
        #expect(prefixed.track(initialDemand: .max(1)).values == [1])
        #expect(prefixed.track().events == [.subscription, .value(1), .value(2), .finished])
    }
}

/// Where Combine's single-output specialisations do something other than the obvious, as OpenCombine's suite
/// (run against Combine) records.
@Suite struct SingleOutputSpecialisationQuirkTests {
    @Test(
        arguments: [(0..<10, 12), (-10..<10, nil), (0..<0, 12), (1..<10, nil), (-10 ..< -5, nil)]
            as [(Range<Int>, Int?)])
    func justOutputInARangeGivesTheOutputExactlyWhenTheRangeStartsAtZero(range: Range<Int>, expected: Int?) {
        #expect(Just(12).output(in: range).output == expected)
    }

    @Test func justOutputInClosedAndPartialRanges() {
        #expect(Just(12).output(in: 0...0).output == 12)
        #expect(Just(12).output(in: -10...10).output == nil)
        #expect(Just(12).output(in: (-10)...).output == nil)
    }

    @Test func theThrowingComparatorsAreAskedOnceOnTheOutputAndFailWhenTheyThrow() {
        var calls = 0
        let throwing: (Int, Int) throws -> Bool = { _, _ in
            calls += 1
            throw TestError(code: 8)
        }
        #expect(Just(44).tryRemoveDuplicates(by: throwing).track().events == [.subscription, .failure("TestError(8)")])
        let result = Result<Int, TestError>.Publisher(2)
        #expect(result.tryMin(by: throwing).track().events == [.subscription, .failure("TestError(8)")])
        #expect(result.tryMax(by: throwing).track().events == [.subscription, .failure("TestError(8)")])
        #expect(result.tryRemoveDuplicates(by: throwing).track().events == [.subscription, .failure("TestError(8)")])
        #expect(calls == 4)
        let failed = Result<Int, TestError>.Publisher(TestError(code: 1))
        #expect(failed.tryMin(by: throwing).track().events == [.subscription, .failure("TestError(1)")])
        #expect(calls == 4)
        #expect(Just(44).tryRemoveDuplicates { $0 != $1 }.track().values == [44])
    }

    @Test func justPrependAndAppendReadTheSequenceAsCombinesDo() {
        let prepended = CountingSequence([1, 2])
        #expect(Just(3).prepend(prepended).sequence == [1, 2, 3])
        #expect(prepended.calls == ["underestimatedCount", "underestimatedCount", "makeIterator"])
        let appended = CountingSequence([2, 3])
        #expect(Just(1).append(appended).sequence == [1, 2, 3])
        #expect(appended.calls == ["underestimatedCount", "makeIterator"])
    }
}

/// A sequence that records which of its requirements are called.
private final class CountingSequence: Sequence {
    let elements: [Int]
    var calls: [String] = []

    init(_ elements: [Int]) { self.elements = elements }

    var underestimatedCount: Int {
        calls.append("underestimatedCount")
        return elements.count
    }

    func makeIterator() -> IndexingIterator<[Int]> {
        calls.append("makeIterator")
        return elements.makeIterator()
    }
}
