import HTTP
import Testing

/// json-server's custom routes (`--routes`), with the rules of its README and the chaining its middlewares
/// do; every expectation here was checked against json-server 0.17.4 on the same rules.
@Suite struct URLRewritesTests {
    private let readme: [(pattern: String, target: String)] = [
        ("/api/*", "/$1"),
        ("/:resource/:id/show", "/:resource/:id"),
        ("/posts/:category", "/posts?category=:category"),
        ("/articles\\?id=:id", "/posts/:id"),
    ]

    @Test(arguments: [
        ("/api/posts", "/posts"),
        // The rules are chained: `/posts/1` matches `/posts/:category` next (as in json-server).
        ("/api/posts/1", "/posts?category=1"),
        ("/api/posts?_limit=1", "/posts?_limit=1"),
        ("/posts/1/show", "/posts?category=1"),
        ("/posts/1/show/", "/posts?category=1"),
        ("/comments/1/show", "/comments/1"),
        ("/posts/javascript", "/posts?category=javascript"),
        ("/articles?id=1", "/posts/1"),
        ("/API/Posts/2", "/posts?category=2"),
        ("/posts", "/posts"),
        ("/apix", "/apix"),
    ])
    func theReadmesRulesRewriteAsJSONServerDoes(url: String, rewritten: String) throws {
        #expect(try URLRewrites(readme).rewrite(url) == rewritten)
    }

    @Test func groupsTakeTheirOwnPatternsModifiersAndNumbers() throws {
        let rules = try URLRewrites([
            ("/v1/:id(\\d+)", "/posts/:id"),
            ("/one/:a/:b?", "/pair?a=:a&b=:b"),
            ("/files/*.json", "/db?file=$1"),
            ("/x/(a|b)/:n", "/$1/$2/$9"),
        ])
        #expect(rules.rewrite("/v1/12") == "/posts/12")
        #expect(rules.rewrite("/v1/ab") == "/v1/ab")
        #expect(rules.rewrite("/one/p/q") == "/pair?a=p&b=q")
        #expect(rules.rewrite("/one/p") == "/pair?a=p&b=")
        #expect(rules.rewrite("/files/a/b.json") == "/db?file=a/b")
        #expect(rules.rewrite("/files/a.jsonx") == "/files/a.jsonx")
        #expect(rules.rewrite("/x/b/7") == "/b/7/")
    }

    @Test func aRequestKeepsItsMethodHeadersAndBodyAndTakesTheNewQuery() throws {
        let rules = try URLRewrites([("/api/*", "/$1")])
        let request = Request(.post, "/api/posts?_page=2", headers: ["X-A": "1"], body: Array("{}".utf8))
        let rewritten = try rules.apply(to: request)
        #expect(rewritten.method == .post && rewritten.path == "/posts" && rewritten.rawQuery == "_page=2")
        #expect(rewritten.query["_page"] == "2" && rewritten.headers["X-A"] == "1" && rewritten.body == request.body)
        let untouched = Request(.get, "/todos%20x?a=b")
        #expect(try rules.apply(to: untouched).rawPath == "/todos%20x")
    }

    /// Rules that repeat a group, chained, would double a client's URL at each: past 64 KiB the request is
    /// refused (414) instead of the server building it.
    @Test func aURLTheRulesWouldGrowPast64KiBIsRefused() throws {
        let doubling = try URLRewrites(Array(repeating: ("/*", "/$1$1"), count: 20))
        #expect(doubling.rewrite("/ab") == nil)
        #expect(doubling.rewrite("/") == "/")
        do {
            _ = try doubling.apply(to: Request(.get, "/ab"))
            Issue.record("a URL past the bound was rewritten")
        } catch {
            #expect(error.status == 414)
        }
    }

    @Test func aPatternPCRE2CannotCompileIsRefusedByName() {
        #expect(throws: URLRewriteError.self) { try URLRewrites([("/ok/*", "/$1"), ("/bad/:id([)", "/x")]) }
        do {
            _ = try URLRewrites([("/bad/:id(a{99999})", "/x")])
            Issue.record("a pattern past the compile limits was accepted")
        } catch {
            #expect(error.rule == "/bad/:id(a{99999})")
        }
    }
}
