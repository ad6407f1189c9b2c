import Foundation
import Reactive
import ReactiveNetworking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The data task publisher's subscription as Combine's: one task, made on the first request and resumed on
/// every request; a handler called with neither a response nor an error fails with `URLError(.unknown)`; a
/// request of zero traps; its mirror shows the task, the downstream, the publisher and the demand.
@Suite struct DataTaskSubscriptionTests {
    @Test func everyRequestResumesTheOneTask() throws {
        let session = ScriptedSession(configuration: .ephemeral)
        let tracker = TrackingSubscriber<Data, URLError>(initialDemand: .none)
        session.dataTaskPublisher(for: try #require(URL(string: "http://127.0.0.1:1/x"))).map { $0.data }.subscribe(
            tracker)
        #expect(session.task.calls.value.isEmpty)
        tracker.request(.max(2))
        tracker.request(.max(1))
        #expect(session.task.calls.value == ["resume", "resume"])
        #expect(session.handlers.value.count == 1)
        tracker.cancel()
        tracker.cancel()
        #expect(session.task.calls.value == ["resume", "resume", "cancel"])
        session.complete(data: Data("late".utf8), response: nil, error: nil)
        #expect(tracker.events == [.subscription])
    }

    @Test func neitherAResponseNorAnErrorFailsAsUnknown() throws {
        let session = ScriptedSession(configuration: .ephemeral)
        let tracker = TrackingSubscriber<Data, URLError>(initialDemand: .max(1))
        session.dataTaskPublisher(for: try #require(URL(string: "http://127.0.0.1:1/x"))).map { $0.data }.subscribe(
            tracker)
        session.complete(data: Data("body".utf8), response: nil, error: nil)
        session.complete(data: Data("body".utf8), response: nil, error: nil)
        #expect(tracker.events == [.subscription, .failure("\(URLError(.unknown))")])
        #expect(session.task.calls.value == ["resume"])
    }

    @Test func theMirrorShowsTaskDownstreamPublisherAndDemand() throws {
        let session = ScriptedSession(configuration: .ephemeral)
        let publisher = session.dataTaskPublisher(for: try #require(URL(string: "http://127.0.0.1:1/x")))
        let subscription = Locked<(any Subscription)?>(nil)
        let subscriber = AnySubscriber<URLSession.DataTaskPublisher.Output, URLError>(
            receiveSubscription: { given in subscription.mutate { $0 = given } })
        publisher.subscribe(subscriber)
        let given = try #require(subscription.value)
        let before = Mirror(reflecting: given).children.map { ($0.label ?? "", String(describing: $0.value)) }
        #expect(before.map(\.0) == ["task", "downstream", "parent", "demand"])
        #expect(
            before.map(\.1) == [
                "nil", String(describing: Optional(subscriber)),
                String(describing: Optional(publisher)), "max(0)",
            ])
        given.request(.max(3))
        let after = Mirror(reflecting: given).children.map { String(describing: $0.value) }
        #expect(after[0].contains("RecordingDataTask"))
        #expect(after[3] == "max(3)")
        given.cancel()
        #expect(
            Mirror(reflecting: given).children.map { String(describing: $0.value) }
                == ["nil", "nil", "nil", "max(0)"])
    }

    @Test func aRequestOfZeroTraps() async {
        await #expect(processExitsWith: .failure) {
            let session = ScriptedSession(configuration: .ephemeral)
            let tracker = TrackingSubscriber<Data, URLError>(initialDemand: .none)
            session.dataTaskPublisher(for: URL(fileURLWithPath: "/")).map { $0.data }.subscribe(tracker)
            tracker.request(.none)
        }
    }
}

/// A session whose one data task records the calls it gets and whose completion handlers run when the
/// test says.
// NB: @unchecked Sendable: its own state is behind a lock (Locked).
private final class ScriptedSession: URLSession, @unchecked Sendable {
    let task = RecordingDataTask()
    let handlers = Locked<[@Sendable (Data?, URLResponse?, (any Error)?) -> Void]>([])

    override func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDataTask {
        handlers.mutate { $0.append(completionHandler) }
        return task
    }

    func complete(data: Data?, response: URLResponse?, error: (any Error)?) {
        for handler in handlers.value { handler(data, response, error) }
    }
}

// NB: @unchecked Sendable: its own state is behind a lock (Locked).
private final class RecordingDataTask: URLSessionDataTask, @unchecked Sendable {
    let calls = Locked<[String]>([])
    override func resume() { calls.mutate { $0.append("resume") } }
    override func cancel() { calls.mutate { $0.append("cancel") } }
}
