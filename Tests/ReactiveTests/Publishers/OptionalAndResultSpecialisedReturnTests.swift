import Reactive
import Testing

/// Combine's operators on `Optional.Publisher` and `Result.Publisher` return publishers of the same kind,
/// computed when applied; each result type is pinned by an annotation.
@Suite struct OptionalSpecialisedReturnTests {
    private let some = Optional(3).publisher
    private let none = Optional<Int>.none.publisher

    @Test func transformsComputeAtOnce() {
        let mapped: Optional<String>.Publisher = some.map { "\($0)" }
        let compact: Optional<Int>.Publisher = some.compactMap { $0 > 5 ? $0 : nil }
        let reduced: Optional<Int>.Publisher = some.reduce(10, +)
        let scanned: Optional<Int>.Publisher = some.scan(1, *)
        #expect(mapped.output == "3" && compact.output == nil && reduced.output == 13 && scanned.output == 3)
        #expect(none.map { $0 * 2 }.output == nil)
    }

    @Test func anEmptyPublisherStaysEmptyEvenForCountAndAllSatisfy() {
        let count: Optional<Int>.Publisher = none.count()
        let all: Optional<Bool>.Publisher = none.allSatisfy { $0 > 0 }
        let contains: Optional<Bool>.Publisher = none.contains(3)
        #expect(count.output == nil && all.output == nil && contains.output == nil)
        #expect(some.count().output == 1 && some.allSatisfy { $0 > 0 }.output == true)
        #expect(some.contains(where: { $0 == 4 }).output == false)
    }

    @Test func collectGivesAnEmptyArrayForNothing() {
        let collected: Optional<[Int]>.Publisher = none.collect()
        #expect(collected.output == [])
        #expect(some.collect().output == [3])
    }

    @Test func selectorsKeepOrDropTheOnlyOutput() {
        #expect(some.dropFirst().output == nil && some.dropFirst(0).output == 3)
        #expect(some.prefix(0).output == nil && some.prefix(1).output == 3)
        #expect(some.output(at: 0).output == 3 && some.output(at: 1).output == nil)
        #expect(some.output(in: 0..<1).output == 3 && some.output(in: 1..<3).output == nil)
        #expect(some.first(where: { $0 > 3 }).output == nil && some.last(where: { $0 == 3 }).output == 3)
        #expect(some.drop(while: { $0 < 5 }).output == nil && some.prefix(while: { $0 < 5 }).output == 3)
        #expect(some.min().output == 3 && some.max().output == 3 && some.removeDuplicates().output == 3)
    }

    @Test func replaceEmptyIsAJustAndIgnoreOutputAnEmpty() {
        let replaced: Just<Int> = none.replaceEmpty(with: 7)
        let ignored: Empty<Int, Never> = some.ignoreOutput()
        #expect(replaced.output == 7 && some.replaceEmpty(with: 7).output == 3)
        #expect(ignored.completeImmediately)
    }
}

@Suite struct ResultSpecialisedReturnTests {
    private let success = Result<Int, TestError>.success(3).publisher
    private let failure = Result<Int, TestError>.failure(TestError(code: 9)).publisher

    @Test func transformsComputeAtOnceAndKeepTheFailure() {
        let mapped: Result<String, TestError>.Publisher = success.map { "\($0)" }
        let scanned: Result<Int, TestError>.Publisher = success.scan(1, +)
        #expect(mapped.result == .success("3") && scanned.result == .success(4))
        #expect(failure.map { $0 * 2 }.result == .failure(TestError(code: 9)))
        let counted: Result<Int, TestError>.Publisher = failure.count()
        #expect(counted.result == .failure(TestError(code: 9)) && success.count().result == .success(1))
    }

    @Test func tryVariantsTurnAThrownErrorIntoTheFailure() throws {
        let thrown: Result<Int, any Error>.Publisher = success.tryMap { _ in throw TestError(code: 5) }
        #expect(throws: TestError(code: 5)) { try thrown.result.get() }
        #expect(try success.tryReduce(1, +).result.get() == 4)
        #expect(try success.tryAllSatisfy { $0 > 2 }.result.get())
        #expect(try success.tryContains { $0 == 1 }.result.get() == false)
        #expect(throws: TestError(code: 9)) { try failure.tryScan(0, +).result.get() }
    }

    @Test func errorOperatorsRetypeTheFailure() {
        let mapped: Result<Int, Never>.Publisher = failure.replaceError(with: 0)
        #expect(mapped.result == .success(0))
        let retyped: Result<Int, TestError>.Publisher = Result<Int, Never>.success(1).publisher
            .setFailureType(to: TestError.self)
        #expect(retyped.result == .success(1))
        let renamed: Result<Int, TestError>.Publisher = failure.mapError { TestError(code: $0.code + 1) }
        #expect(renamed.result == .failure(TestError(code: 10)))
    }

    @Test func reducersOfOneOutputAreComputed() {
        let collected: Result<[Int], TestError>.Publisher = success.collect()
        let contains: Result<Bool, TestError>.Publisher = success.contains(3)
        let all: Result<Bool, TestError>.Publisher = success.allSatisfy { $0 > 5 }
        #expect(collected.result == .success([3]) && contains.result == .success(true))
        #expect(all.result == .success(false) && success.min().result == .success(3))
        let ignored: Empty<Int, TestError> = success.ignoreOutput()
        #expect(ignored.completeImmediately)
    }
}
