import Dispatch
import Foundation
import Reactive
import ReactiveTesting
import Testing

@Suite struct DelayTests {
    @Test func shiftsEveryEventByTheInterval() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.delay(for: .seconds(2), scheduler: scheduler).track()
        subject.send(1)
        scheduler.advance(by: .seconds(1))
        subject.send(2)
        subject.send(completion: .finished)
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [1])
        scheduler.advance(by: .seconds(1))
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }

    /// As Combine's, `delay`'s inner object (the upstream's subscriber and the downstream's subscription) has
    /// no description, mirror or playground description, where `receive(on:)`'s is `"ReceiveOn"`.
    @Test func itsSubscriberAndSubscriptionAreUndescribed() throws {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.delay(for: .seconds(1), scheduler: DispatchQueue.test).track()
        upstream.subscribe()
        let inner = upstream.attached
        let given = try #require(tracker.subscription)
        for object in [inner, given as Any] {
            #expect(!(object is any CustomStringConvertible))
            #expect(!(object is any CustomReflectable))
            #expect(!(object is any CustomPlaygroundDisplayConvertible))
        }
        let hop = ManualPublisher<Int, Never>()
        _ = hop.receive(on: DispatchQueue.test).track()
        #expect((hop.attached as? any CustomStringConvertible)?.description == "ReceiveOn")
    }
}
