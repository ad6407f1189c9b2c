import Dispatch
import Foundation
import Reactive
import Testing

/// Subscriptions describe themselves with Combine's names, so `print()`, logs and the debugger show what a
/// Combine user expects.
@Suite struct CombineDescriptionTests {
    static let subject = PassthroughSubject<Int, Never>()
    static let cases: [(String, @Sendable () -> (any Subscription)?)] = [
        ("PassthroughSubject", { subscriptionGiven(by: subject) }),
        ("CurrentValueSubject", { subscriptionGiven(by: CurrentValueSubject<Int, Never>(0)) }),
        ("Just", { subscriptionGiven(by: Just(1)) }),
        ("Empty", { subscriptionGiven(by: Empty<Int, Never>()) }),
        ("Future", { subscriptionGiven(by: Future<Int, Never> { _ in }) }),
        ("RemoveDuplicates", { subscriptionGiven(by: subject.removeDuplicates()) }),
        ("DropWhile", { subscriptionGiven(by: subject.drop { _ in false }) }),
        ("First", { subscriptionGiven(by: subject.first()) }),
        ("Last", { subscriptionGiven(by: subject.last()) }),
        ("Count", { subscriptionGiven(by: subject.count()) }),
        ("Reduce", { subscriptionGiven(by: subject.reduce(0, +)) }),
        ("FlatMap", { subscriptionGiven(by: subject.flatMap { Just($0) }) }),
        ("SwitchToLatest", { subscriptionGiven(by: subject.map { Just($0) }.switchToLatest()) }),
        ("Zip", { subscriptionGiven(by: subject.zip(subject)) }),
        ("CombineLatest", { subscriptionGiven(by: subject.combineLatest(subject)) }),
        ("Catch", { subscriptionGiven(by: subject.catch { _ in Just(0) }) }),
        ("Concatenate", { subscriptionGiven(by: subject.append(1)) }),
        ("ReceiveOn", { subscriptionGiven(by: subject.receive(on: DispatchQueue.main)) }),
        ("Debounce", { subscriptionGiven(by: subject.debounce(for: .seconds(1), scheduler: DispatchQueue.main)) }),
        ("HandleEvents", { subscriptionGiven(by: subject.handleEvents()) }),
        ("Print", { subscriptionGiven(by: subject.print("", to: Discard())) }),
        ("Merge", { subscriptionGiven(by: subject.merge(with: subject)) }),
        ("Merge", { subscriptionGiven(by: Publishers.MergeMany(subject, subject, subject)) }),
        ("PublishedSubject", { subscriptionGiven(by: PublishedHolder().$value) }),
        ("Buffer", { subscriptionGiven(by: subject.buffer(size: 1, prefetch: .byRequest, whenFull: .dropOldest)) }),
        (
            "CollectByTime",
            { subscriptionGiven(by: subject.collect(.byTime(DispatchQueue.main, .seconds(1)))) }
        ),
        ("CollectByCount", { subscriptionGiven(by: subject.collect(2)) }),
        ("Output", { subscriptionGiven(by: subject.prefix(2)) }),
        ("Drop", { subscriptionGiven(by: subject.dropFirst()) }),
        ("TryMap", { subscriptionGiven(by: subject.tryMap { $0 }) }),
        (
            "Throttle",
            {
                subscriptionGiven(by: subject.throttle(for: .seconds(1), scheduler: DispatchQueue.main, latest: true))
            }
        ),
    ]

    @Test(arguments: cases.indices)
    func theSubscriptionADownstreamGetsCarriesCombinesName(index: Int) throws {
        let (name, attach) = Self.cases[index]
        let subscription = try #require(attach())
        #expect(String(describing: subscription) == name)
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == name)
        subscription.cancel()
    }

    @Test func justAndOptionalSubscriptionsMirrorTheirOutput() throws {
        let just = try #require(subscriptionGiven(by: Just(42)))
        #expect((just as? any CustomReflectable)?.customMirror.children.map { "\($0.value)" } == ["42"])
        let optional = try #require(subscriptionGiven(by: Optional(7).publisher))
        #expect((optional as? any CustomReflectable)?.customMirror.children.map { "\($0.value)" } == ["7"])
    }
}

/// A stream that keeps nothing.
private struct Discard: TextOutputStream {
    mutating func write(_ string: String) {}
}

/// An object with one `@Published` property.
private final class PublishedHolder: @unchecked Sendable {
    @Published var value = 0
}

/// Subscribes a subscriber that asks for nothing and returns the subscription it was given.
private func subscriptionGiven<P: Publisher>(by publisher: P) -> (any Subscription)? {
    let recorder = SubscriptionRecorder<P.Output, P.Failure>()
    publisher.subscribe(recorder)
    return recorder.subscription
}

/// Keeps the subscription it gets and asks for nothing.
private final class SubscriptionRecorder<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    var subscription: (any Subscription)?
    func receive(subscription: any Subscription) { self.subscription = subscription }
    func receive(_ input: Input) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Failure>) {}
}

/// The inner subscribers whose Combine counterparts list their fields in the mirror: the same names and
/// labels, read before any element arrives (what OpenCombine's suite, run against Combine, records).
@Suite struct CombineInnerMirrorTests {
    struct Item: Equatable, Codable {
        var doubled = 2
        var tripled = 3
    }

    static let cases: [(name: String, labels: [String], values: [String: String], attach: @Sendable () -> Any)] = [
        ("Scan", ["downstream", "result"], ["result": "0"], { attached { $0.scan(0, +) } }),
        ("Collect", ["count"], ["count": "0"], { attached { $0.collect() } }),
        (
            "CollectByCount", ["downstream", "upstreamSubscription", "buffer", "count"],
            ["buffer": "[]", "count": "53"],
            { attached { $0.collect(53) } }
        ),
        (
            "Debounce", ["downstream", "downstreamDemand", "currentValue"],
            ["downstreamDemand": "max(0)", "currentValue": "nil"],
            { attached { $0.debounce(for: .seconds(1), scheduler: DispatchQueue.main) } }
        ),
        (
            "Encode", ["downstream", "finished", "upstreamSubscription"], ["finished": "false"],
            { attached { $0.encode(encoder: JSONEncoder()) } }
        ),
        ("RemoveDuplicates", ["downstream", "last"], ["last": "nil"], { attached { $0.removeDuplicates() } }),
        (
            "TryRemoveDuplicates", ["downstream", "last"], ["last": "nil"],
            { attached { $0.tryRemoveDuplicates { $0 == $1 } } }
        ),
        (
            "AssertNoFailure", ["file", "line", "prefix"],
            ["file": "SomeFile.swift", "line": "1987", "prefix": "PREFIX"],
            { attached { $0.assertNoFailure("PREFIX", file: "SomeFile.swift", line: 1987) } }
        ),
        (
            "Buffer", ["values", "state", "downstreamDemand", "terminal"],
            ["values": "[]", "downstreamDemand": "max(0)", "terminal": "nil"],
            { attached { $0.buffer(size: 13, prefetch: .keepFull, whenFull: .dropNewest) } }
        ),
        ("Concatenate", [], [:], { attached { $0.append(2, 3) } }),
    ]

    @Test(arguments: cases.indices)
    func theInnerSubscriberMirrorsCombinesFields(index: Int) throws {
        let (name, labels, values, attach) = Self.cases[index]
        let inner = attach()
        #expect((inner as? any CustomStringConvertible)?.description == name)
        let mirror = try #require((inner as? any CustomReflectable)?.customMirror)
        #expect(mirror.children.map { $0.label ?? "" } == labels)
        for child in mirror.children {
            if let label = child.label, let expected = values[label] { #expect("\(child.value)" == expected) }
        }
    }

    @Test func keyPathMapsAreNamedForTheirKeysAndMirrorThem() throws {
        let upstream = ManualPublisher<Item, Never>()
        _ = upstream.map(\.doubled).track()
        #expect((upstream.attached as? any CustomStringConvertible)?.description == "ValueForKey")
        #expect((upstream.attached as? any CustomReflectable)?.customMirror.children.map(\.label) == ["keyPath"])
        let pair = ManualPublisher<Item, Never>()
        let tracker = pair.map(\.doubled, \.tripled).sink { _ in }
        #expect((pair.attached as? any CustomStringConvertible)?.description == "ValueForKeys")
        #expect(
            (pair.attached as? any CustomReflectable)?.customMirror.children.map(\.label) == ["keyPath0", "keyPath1"])
        pair.subscribe()
        pair.send(Item())
        tracker.cancel()
    }

    @Test func concatenateSubscribesToEachPartUnderTheDownstreamSubscriptionsIdentity() throws {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let tracker = prefix.append(suffix).track()
        prefix.subscribe()
        let identifier = try #require(tracker.subscription?.combineIdentifier)
        #expect((prefix.attached as? any CustomCombineIdentifierConvertible)?.combineIdentifier == identifier)
        prefix.send(completion: .finished)
        #expect((suffix.attached as? any CustomCombineIdentifierConvertible)?.combineIdentifier == identifier)
    }
}

/// The subscriber an operator attaches to a manual upstream of integers.
private func attached<P: Publisher>(_ makeOperator: (ManualPublisher<Int, Never>) -> P) -> Any {
    let upstream = ManualPublisher<Int, Never>()
    makeOperator(upstream).subscribe(SubscriptionRecorder<P.Output, P.Failure>())
    return upstream.attached
}
