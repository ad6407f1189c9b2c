import Foundation
import Testing

@testable import HTTP
@testable import Server

/// Error messages read by a person: they say what is wrong in the client's words and what would work.
@Suite struct ErrorMessagesTests {
    private struct Body: Decodable {
        var error: String
        var message: String
    }

    private func error(_ target: String, _ method: HTTPMethod = .get) throws -> (status: Int, body: Body) {
        let response = try RouteHarness().send(method, target)
        return (response.status, try response.decoded(Body.self))
    }

    @Test func anUnknownRouteUnderAResourceIsNotCalledAFile() throws {
        let (status, body) = try error("/posts/1/comments")
        #expect(status == 404)
        #expect(body.error == "not_found")
        #expect(
            body.message
                == "no route for GET /posts/1/comments; the routes under /posts are GET /posts, GET /posts/{id}, "
                + "POST /posts/refresh")
        #expect(!body.message.contains("file"))
    }

    @Test func anUnknownIdSaysWhichIdIsMissing() throws {
        let (status, body) = try error("/posts/9999")
        #expect(status == 404)
        #expect(body.message == "There is no post with id 9999.")
    }

    @Test(arguments: ["_embed", "_expand"])
    func aRelationParameterIsNotCalledAFieldAndTheUnderscoreParametersAreListed(name: String) throws {
        let (status, body) = try error("/posts?\(name)=comments")
        #expect(status == 400)
        #expect(body.error == "invalid_query")
        #expect(!body.message.contains("field '\(name)'"))
        #expect(body.message.hasPrefix("'\(name)' is not a query parameter LiveState knows"))
        #expect(body.message.contains("_sort, _order, _page, _limit, _start and _end"))
        #expect(body.message.contains("the fields are userId, id, title, body"))
    }

    @Test func anUnknownFieldStillNamesTheFields() throws {
        let (_, body) = try error("/todos?colour=red")
        #expect(body.message == "unknown field 'colour'; the fields are id, title, completed")
    }

    @Test(arguments: ["_limit", "_page", "_start", "_end"])
    func aNumberTooLargeForItsParameterIsSaidAsSuch(name: String) throws {
        let (status, body) = try error("/albums?\(name)=99999999999999999999999")
        #expect(status == 400)
        #expect(body.message.hasPrefix("'\(name)' is too large: the largest number it takes is 9223372036854775807"))
    }

    @Test(arguments: ["0", "00"])
    func pageZeroSaysTheSmallestPageNotTooLarge(page: String) throws {
        let (status, body) = try error("/albums?_page=\(page)")
        #expect(status == 400)
        #expect(body.message == "'_page' must be a whole number of at least 1, not '\(page)'")
    }

    @Test func aNegativeLimitStillSaysTheSmallest() throws {
        let (_, body) = try error("/albums?_limit=-1")
        #expect(body.message == "'_limit' must be a whole number of at least 0, not '-1'")
    }

    @Test func anIdTooLargeIsSaidAsSuchAndNoSwiftTypeIsNamed() throws {
        let (status, large) = try error("/albums/99999999999999999999")
        #expect(status == 400)
        #expect(
            large.message
                == "path parameter 'id' is too large: no id is above 9223372036854775807, got '99999999999999999999'")
        let (_, word) = try error("/todos/abc")
        #expect(word.message == "path parameter 'id' must be a whole number, got 'abc'")
        #expect(!word.message.contains("Int"))
    }

    @Test func aMistypedEventsParameterIsA400NotEveryTopic() throws {
        let (status, body) = try error("/events?topic=todos")
        #expect(status == 400)
        #expect(body.error == "invalid_query")
        #expect(
            body.message
                == "unknown parameter 'topic' (did you mean 'topics'?); /events takes topics, diff, lastEventID")
    }
}
