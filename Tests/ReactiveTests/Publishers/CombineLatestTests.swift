import Reactive
import Testing

@Suite struct CombineLatestTests {
    @Test func emitsOnceBothHaveAValueThenOnEveryChange() {
        let name = PassthroughSubject<String, Never>()
        let password = PassthroughSubject<String, Never>()
        var valid: [Bool] = []
        let token = name.combineLatest(password) { !$0.isEmpty && $1.count >= 8 }.sink { valid.append($0) }
        name.send("ann")
        password.send("short")
        password.send("long enough")
        name.send("")
        token.cancel()
        #expect(valid == [false, true, false])
    }

    @Test func threeWay() {
        let tracker = Just(1).combineLatest(Just(2), Just(3)).map { $0 + $1 + $2 }.track()
        #expect(tracker.events == [.subscription, .value(6), .finished])
    }

    @Test func keepsOnlyTheLatestCombinationWithoutDemand() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let tracker = a.combineLatest(b).map { $0 * 10 + $1 }.track(initialDemand: .max(1))
        a.send(1)
        b.send(1)
        a.send(2)
        a.send(3)
        #expect(tracker.values == [11])
        tracker.request(.max(1))
        #expect(tracker.values == [11, 31])
    }

    @Test func finishesEarlyWhenOneSideFinishesEmpty() {
        let a = PassthroughSubject<Int, Never>()
        let tracker = a.combineLatest(Empty<Int, Never>()).map { $0 + $1 }.track()
        #expect(tracker.events == [.subscription, .finished])
    }
}
