import Domain
import Foundation
import Reactive
import Synchronization
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// `/posts` through the whole router, in-process.
@Suite struct PostRoutesTests {
    private let harness: RouteHarness
    init() throws { harness = try RouteHarness() }

    @Test func listsTheHundredEmbeddedPosts() throws {
        let response = try harness.send(.get, "/posts")
        #expect(response.status == 200)
        #expect(try JSONDecoder().decode([Post].self, from: Data(response.body)) == EmbeddedData.posts)
        #expect(response.headers["X-Total-Count"] == "100")
    }

    @Test func filtersAndPagesWithTheQueryLanguage() throws {
        #expect(try harness.decode([Post].self, "/posts?userId=3").map(\.id) == Array(21...30))
        #expect(try harness.decode([Post].self, "/posts?userId=3&userId=4&_limit=12").map(\.id) == Array(21...32))
        let page = try harness.send(.get, "/posts?_page=10")
        #expect(
            page.headers["Link"]
                == #"</posts?_page=1>; rel="first", </posts?_page=9>; rel="prev", </posts?_page=10>; rel="last""#)
        #expect(try harness.send(.get, "/posts?albumId=3").status == 400)
    }

    @Test func getsOnePostOr404() throws {
        #expect(try harness.decode(Post.self, "/posts/42") == EmbeddedData.posts[41])
        let missing = try harness.send(.get, "/posts/101")
        #expect(missing.status == 404)
        #expect(try ErrorBody(missing).error == "not_found")
        #expect(try harness.send(.get, "/posts/x").status == 400)
    }

    @Test func refreshReloadsTheEmbeddedSetAndEmitsIt() throws {
        let history = Mutex<[Int]>([])
        let model = harness.seeds.models.posts
        let subscription = model.posts.sink { posts in history.withLock { $0.append(posts.count) } }
        defer { subscription.cancel() }
        let response = try harness.send(.post, "/posts/refresh")
        #expect(response.status == 200)
        #expect(try JSONDecoder().decode([Post].self, from: Data(response.body)).count == 100)
        #expect(history.withLock { $0 } == [100, 100])
        #expect(try harness.send(.post, "/posts/refresh", json: "{}").status == 200)
        for body in ["{,}", "[]", #"{"force":true}"#] {
            #expect(try harness.send(.post, "/posts/refresh", json: body).status == 400)
        }
        let notJSON = try harness.send(.post, "/posts/refresh", json: "x", headers: ["Content-Type": "text/plain"])
        #expect(notJSON.status == 415)
        let get = try harness.send(.get, "/posts/refresh")
        #expect(get.status == 405)
        #expect(get.headers["Allow"] == "POST")
    }
}
