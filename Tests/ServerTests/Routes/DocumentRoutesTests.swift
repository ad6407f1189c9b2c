import Foundation
import HTTP
import TestSupport
import Testing

@testable import Server

/// A data file's routes, json-server style, on a real store and SQLite journal: what a client reads after
/// each write, the answer of a keyed write sent again, and storage's answer when the journal fails.
@Suite struct DocumentRoutesTests {
    private static let file = """
        {
          "posts": [{"id": 1, "title": "one"}, {"id": 2, "title": "two"}],
          "comments": [{"id": 1, "postId": 1, "body": "first"}, {"id": 2, "postId": 2, "body": "second"}],
          "profile": {"name": "typicode"}
        }
        """

    /// A server on a fresh copy of `file`, closed after `body`.
    private static func serving(_ body: (DocumentRouteHarness) throws -> Void) throws {
        let harness = try DocumentRouteHarness(json: file)
        defer { harness.close() }
        try body(harness)
    }

    @Test func listAndGetAnswerTheFilesItems() throws {
        try Self.serving { server in
            let list = try server.send(.get, "/posts")
            #expect(list.status == 200)
            #expect(list.text == #"[{"id":1,"title":"one"},{"id":2,"title":"two"}]"#)
            #expect(try server.send(.get, "/posts/2").text == #"{"id":2,"title":"two"}"#)
            #expect(try server.send(.get, "/posts?title=one").text == #"[{"id":1,"title":"one"}]"#)
            #expect(try server.send(.get, "/profile").text == #"{"name":"typicode"}"#)
            let missing = try server.send(.get, "/posts/9")
            #expect(missing.status == 404)
        }
    }

    @Test func postAddsAnItemUnderTheNextIdAndTheListShowsIt() throws {
        try Self.serving { server in
            let created = try server.send(.post, "/posts", json: #"{"title":"three"}"#)
            #expect(created.status == 201)
            #expect(created.text == #"{"id":3,"title":"three"}"#)
            #expect(created.headers["Location"] == "/posts/3")
            #expect(try server.send(.get, "/posts/3").text == #"{"id":3,"title":"three"}"#)
            #expect(try server.send(.get, "/posts").text.hasSuffix(#"{"id":3,"title":"three"}]"#))
        }
    }

    @Test func patchMergesPutReplacesAndDeleteRemovesWithItsChildren() throws {
        try Self.serving { server in
            let patched = try server.send(.patch, "/posts/1", json: #"{"views":10}"#)
            #expect(patched.status == 200)
            #expect(patched.text == #"{"id":1,"title":"one","views":10}"#)
            let put = try server.send(.put, "/posts/1", json: #"{"title":"replaced"}"#)
            #expect(put.status == 200)
            #expect(try server.send(.get, "/posts/1").text == put.text)
            #expect(!put.text.contains("views"))
            #expect(try server.send(.patch, "/profile", json: #"{"age":3}"#).text == #"{"name":"typicode","age":3}"#)

            let deleted = try server.send(.delete, "/posts/1")
            #expect(deleted.status == 200)
            #expect(try server.send(.get, "/posts/1").status == 404)
            // json-server's cascade: the post's comments go with it.
            #expect(try server.send(.get, "/comments").text == #"[{"id":2,"postId":2,"body":"second"}]"#)
            #expect(try server.send(.delete, "/posts/1").status == 404)
        }
    }

    @Test func aKeyedPostSentAgainIsAnsweredTheSameAndAddsNothing() throws {
        try Self.serving { server in
            let key: HTTPHeaders = ["Idempotency-Key": "post-once"]
            let first = try server.send(.post, "/posts", json: #"{"title":"retried"}"#, headers: key)
            #expect(first.status == 201)
            let again = try server.send(.post, "/posts", json: #"{"title":"retried"}"#, headers: key)
            #expect(again.status == 201 && again.text == first.text)
            #expect(again.headers["Location"] == first.headers["Location"])
            let db = try server.send(.get, "/db").text
            #expect(db.components(separatedBy: "retried").count == 2)
            // The key sent with another request: 422, and nothing changes.
            let reused = try server.send(.patch, "/posts/2", json: #"{"title":"x"}"#, headers: key)
            #expect(reused.status == 422)
            #expect(try ErrorBody(reused).error == "idempotency_key_reused")
            #expect(try server.send(.get, "/db").text == db)
        }
    }

    @Test func aJournalChangedUnderTheServerIsAnswered503AndNothingChanges() throws {
        try Self.serving { server in
            #expect(try server.send(.post, "/posts", json: #"{"title":"kept"}"#).status == 201)
            let before = try server.send(.get, "/db").text
            // Another program truncates the journal under the running server.
            try #require(truncate(server.journal, 0) == 0)
            for (method, target, json) in [
                (HTTPMethod.post, "/posts", #"{"title":"lost"}"#),
                (.patch, "/posts/1", #"{"title":"lost"}"#),
                (.put, "/profile", #"{"name":"lost"}"#),
                (.delete, "/posts/2", nil),
            ] {
                let refused = try server.send(method, target, json: json)
                #expect(refused.status == 503, "\(method) \(target)")
                #expect(try ErrorBody(refused).error == "storage_unavailable", "\(method) \(target)")
            }
            #expect(try server.send(.get, "/db").text == before)
        }
    }
}
