import Reactive
import Testing

private final class SearchModel: ObservableObject {
    @Published var keyword = ""
    @Published var count = 0
}

@Suite struct PublishedTests {
    @Test func projectedPublisherEmitsCurrentThenEachNewValue() {
        let model = SearchModel()
        let tracker = TrackingSubscriber<String, Never>()
        model.$keyword.subscribe(tracker)
        model.keyword = "swi"
        model.keyword = "swift"
        #expect(tracker.values == ["", "swi", "swift"])
    }

    @Test func emitsInWillSetSoTheSinkStillReadsTheOldValue() {
        let model = SearchModel()
        var seen: [String] = []
        let token = model.$keyword.dropFirst().sink { new in seen.append("\(model.keyword)->\(new)") }
        model.keyword = "a"
        model.keyword = "b"
        token.cancel()
        #expect(seen == ["->a", "a->b"])
        #expect(model.keyword == "b")
    }

    @Test func objectWillChangeFiresBeforeEveryPublishedChange() {
        let model = SearchModel()
        var changes = 0
        let token = model.objectWillChange.sink { changes += 1 }
        model.keyword = "x"
        model.count = 2
        #expect(changes == 2)
        #expect(model.objectWillChange === model.objectWillChange)
        token.cancel()
    }

    @Test func assignToPublishedRepublishes() {
        let model = SearchModel()
        model.$keyword.map(\.count).assign(to: &model.$count)
        model.keyword = "four"
        #expect(model.count == 4)
    }

    @Test func aSuperclassPublishedPropertyFiresTheSubclassObjectWillChange() {
        class Base: ObservableObject {
            @Published var name = ""
        }
        final class Derived: Base {
            @Published var age = 0
        }
        let model = Derived()
        var changes = 0
        let token = model.objectWillChange.sink { changes += 1 }
        model.name = "a"
        model.age = 1
        #expect(changes == 2)
        token.cancel()
    }

    @Test func aValueSetWithoutDemandReachesTheSubscriberAsTheLatestOnItsNextRequest() {
        let model = SearchModel()
        let tracker = model.$count.track(initialDemand: .max(1))
        model.count = 1
        model.count = 2
        tracker.request(.max(1))
        #expect(tracker.values == [0, 2])
    }
}

/// `ObservableObjectPublisher` as Combine's: its own subscription name, and a signal for every subscriber
/// whatever its demand.
@Suite struct ObservableObjectPublisherTests {
    @Test func signalsEverySubscriberEvenWithoutDemand() {
        let publisher = ObservableObjectPublisher()
        let tracker = TrackingSubscriber<Int, Never>()
        publisher.map { 0 }.subscribe(tracker)
        let withoutDemand = publisher.map { 1 }.track(initialDemand: .none)
        publisher.send()
        publisher.send()
        #expect(withoutDemand.values == [1, 1])
        #expect(tracker.values == [0, 0])
        #expect(withoutDemand.subscription.map { String(describing: $0) } == "ObservableObjectPublisher")
    }

    /// As Combine's, a `$property` subscription mirrors the property's `PublishedSubject` as its parent and
    /// subject (and lets go of it once cancelled).
    @Test func aSubscriptionMirrorsThePropertysPublishedSubject() throws {
        let model = SearchModel()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        model.$count.subscribe(tracker)
        let subscription = try #require(tracker.subscription)
        let children = Mirror(reflecting: subscription).children.map { ($0.label ?? "", "\($0.value)") }
        #expect(children.map(\.0) == ["parent", "downstream", "demand", "subject"])
        #expect(children[0].1 == "Optional(Reactive.PublishedSubject<Swift.Int>)")
        #expect(children[2].1 == "max(0)")
        #expect(children[3].1 == "Optional(Reactive.PublishedSubject<Swift.Int>)")
        tracker.cancel()
        #expect(Mirror(reflecting: subscription).children.map { "\($0.value)" }[0] == "nil")
    }
}
