import Reactive
import Testing

/// The operators Combine specialises on `Publishers.Sequence` when the answer is known from the sequence
/// alone: they return an `Optional.Publisher`, a `Result.Publisher`, a `Just` or another `Publishers.Sequence`
/// (the type annotations below only compile if the overloads exist), computed when applied, and publish what
/// the general operators would.
@Suite struct SequenceSpecialisedReturnTests {
    @Test func minAndMaxGiveAnOptionalPublisher() {
        let smallest: Optional<Int>.Publisher = [3, 1, 2].publisher.min()
        let largest: Optional<Int>.Publisher = [3, 1, 2].publisher.max()
        let shortest: Optional<String>.Publisher = ["ccc", "a", "bb"].publisher.min { $0.count < $1.count }
        let longest: Optional<String>.Publisher = ["ccc", "a", "bb"].publisher.max { $0.count < $1.count }
        let none: Optional<Int>.Publisher = [Int]().publisher.min()
        #expect(smallest.track().events == [.subscription, .value(1), .finished])
        #expect(largest.output == 3)
        #expect(shortest.output == "a")
        #expect(longest.output == "ccc")
        #expect(none.track().events == [.subscription, .finished])
    }

    @Test func firstAndLastGiveAnOptionalPublisher() {
        let first: Optional<Int>.Publisher = [4, 5, 6].publisher.first()
        let firstOdd: Optional<Int>.Publisher = [4, 5, 6, 7].publisher.first { !$0.isMultiple(of: 2) }
        let last: Optional<Int>.Publisher = [4, 5, 6].publisher.last()
        let lastOdd: Optional<Int>.Publisher = [4, 5, 6, 7, 8].publisher.last { !$0.isMultiple(of: 2) }
        // A String is bidirectional but not random-access: the Collection and BidirectionalCollection overloads.
        let lastLetter: Optional<Character>.Publisher = "abc".publisher.last()
        let firstLetter: Optional<Character>.Publisher = "abc".publisher.first()
        #expect(first.output == 4)
        #expect(firstOdd.output == 5)
        #expect(last.output == 6)
        #expect(lastOdd.output == 7)
        #expect(lastLetter.output == "c")
        #expect(firstLetter.output == "a")
        #expect([Int]().publisher.last().track().events == [.subscription, .finished])
    }

    @Test func outputAtAnIndexGivesAnOptionalPublisherAndARangeASequence() {
        let second: Optional<Int>.Publisher = [10, 20, 30].publisher.output(at: 1)
        let outside: Optional<Int>.Publisher = [10, 20, 30].publisher.output(at: 3)
        let text = "xyz"
        let letter: Optional<Character>.Publisher = text.publisher.output(at: text.index(after: text.startIndex))
        let middle: Publishers.Sequence<[Int], Never> = [10, 20, 30, 40].publisher.output(in: 1..<3)
        let letters: Publishers.Sequence<[Character], Never> = text.publisher.output(
            in: text.startIndex..<text.index(before: text.endIndex))
        #expect(second.output == 20)
        #expect(outside.track().events == [.subscription, .finished])
        #expect(letter.output == "y")
        #expect(middle.sequence == [20, 30])
        #expect(letters.sequence == ["x", "y"])
    }

    @Test func countIsAJustForANeverFailingArrayAndAResultOtherwise() {
        let counted: Just<Int> = [1, 2, 3].publisher.count()
        let typed: Result<Int, TestError>.Publisher = [1, 2].publisher.setFailureType(to: TestError.self).count()
        let letters: Result<Int, Never>.Publisher = "abcd".publisher.count()
        #expect(counted.output == 3)
        #expect(typed.track().events == [.subscription, .value(2), .finished])
        #expect(letters.result == .success(4))
    }

    @Test func reducingOperatorsGiveAResultPublisher() {
        let sum: Result<Int, Never>.Publisher = [1, 2, 3].publisher.reduce(10, +)
        let all: Result<[Int], Never>.Publisher = [1, 2, 3].publisher.collect()
        let hasTwo: Result<Bool, Never>.Publisher = [1, 2, 3].publisher.contains(2)
        let hasBig: Result<Bool, Never>.Publisher = [1, 2, 3].publisher.contains { $0 > 5 }
        let allSmall: Result<Bool, Never>.Publisher = [1, 2, 3].publisher.allSatisfy { $0 < 5 }
        #expect(sum.result == .success(16))
        #expect(all.track().events == [.subscription, .value([1, 2, 3]), .finished])
        #expect(hasTwo.result == .success(true))
        #expect(hasBig.result == .success(false))
        #expect(allSmall.result == .success(true))
    }

    @Test func throwingReducersFailWithTheThrownError() {
        let folded: Result<Int, any Error>.Publisher = [1, 2].publisher.tryReduce(0) { total, value in
            if value == 2 { throw TestError(code: 7) }
            return total + value
        }
        let satisfied: Result<Bool, any Error>.Publisher = [1].publisher.tryAllSatisfy { _ in throw TestError(code: 8) }
        let contained: Result<Bool, any Error>.Publisher = [1, 2].publisher.tryContains { $0 == 2 }
        #expect(folded.track().events == [.subscription, .failure("TestError(7)")])
        #expect(satisfied.track().events == [.subscription, .failure("TestError(8)")])
        #expect(contained.track().values == [true])
    }

    @Test func dropWhilePrefixWhileAndReplaceNilGiveASequence() {
        let dropped: Publishers.Sequence<DropWhileSequence<[Int]>, Never> = [1, 2, 5, 1].publisher.drop { $0 < 3 }
        let kept: Publishers.Sequence<[Int], Never> = [1, 2, 5, 1].publisher.prefix { $0 < 3 }
        // Combine's type keeps the optional element type (`[Output]`), every element now non-nil.
        let filled: Publishers.Sequence<[Int?], Never> = [1, nil, 3].publisher.replaceNil(with: 0)
        #expect(dropped.track().values == [5, 1])
        #expect(kept.sequence == [1, 2])
        #expect(filled.sequence == [1, 0, 3])
    }

    @Test func appendAndPrependJoinTheSequences() {
        let appended: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append(3, 4)
        let appendedSequence: Publishers.Sequence<[Int], Never> = [1].publisher.append(2...3)
        let appendedPublisher: Publishers.Sequence<[Int], Never> = [1].publisher.append([2].publisher)
        let prepended: Publishers.Sequence<[Int], Never> = [3].publisher.prepend(1, 2)
        let prependedSequence: Publishers.Sequence<[Int], Never> = [3].publisher.prepend(1...2)
        let prependedPublisher: Publishers.Sequence<[Int], Never> = [3].publisher.prepend([2].publisher)
        #expect(appended.sequence == [1, 2, 3, 4])
        #expect(appendedSequence.sequence == [1, 2, 3])
        #expect(appendedPublisher.sequence == [1, 2])
        #expect(prepended.track().values == [1, 2, 3])
        #expect(prependedSequence.sequence == [1, 2, 3])
        #expect(prependedPublisher.sequence == [2, 3])
    }

    @Test func theAnswerIsComputedWhenTheOperatorIsApplied() {
        var calls = 0
        let found = [1, 2, 3].publisher.first { value in
            calls += 1
            return value == 2
        }
        #expect(calls == 2)
        #expect(found.track(initialDemand: .none).events == [.subscription])
        #expect(calls == 2)
    }
}
