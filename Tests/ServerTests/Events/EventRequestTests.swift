import Foundation
import Synchronization
import Testing

@testable import HTTP
@testable import Server

/// `EventTopic` and `EventRequest`: what `/events` accepts.
@Suite struct EventRequestTests {
    @Test func noTopicsMeansAll() throws {
        let options = try EventRequest(Request(.get, "/events"))
        #expect(options.topics == Set(EventTopic.allCases))
        #expect(!options.diff && options.lastEventID == nil)
    }

    @Test func readsTopicsDiffAndLastEventID() throws {
        let options = try EventRequest(
            Request(.get, "/events?topics=todos,%20posts&topics=image&diff=1", headers: ["Last-Event-ID": "42"]))
        #expect(options.topics == [.todos, .posts, .image])
        #expect(options.diff && options.lastEventID == 42)
    }

    @Test func readsLastEventIDFromTheQueryForANewEventSource() throws {
        #expect(try EventRequest(Request(.get, "/events?lastEventID=42")).lastEventID == 42)
        // The header a reconnecting EventSource sends wins over the page's first value.
        let both = try EventRequest(Request(.get, "/events?lastEventID=42", headers: ["Last-Event-ID": "50"]))
        #expect(both.lastEventID == 50)
    }

    @Test(arguments: [
        "/events?topics=todos,nope", "/events?topics=", "/events?topics=,", "/events?diff=maybe",
        "/events?topic=todos", "/events?topics=todos&since=4",
    ])
    func refusesWithA400(target: String) {
        #expect(throws: HTTPError.self) { try EventRequest(Request(.get, target)) }
        do {
            _ = try EventRequest(Request(.get, target))
        } catch {
            #expect(error.status == 400)
        }
    }

    @Test func aMalformedLastEventIDCountsAsAFirstConnect() throws {
        let options = try EventRequest(Request(.get, "/events", headers: ["Last-Event-ID": "abc"]))
        #expect(options.lastEventID == nil)
    }

    @Test func onlyFrameworksIsAPassthroughTopic() {
        #expect(EventTopic.allCases.filter { !$0.replaysCurrentValue } == [.frameworks])
        #expect(EventTopic.allCases.filter(\.isCollection) == [.todos, .posts, .albums])
    }
}
