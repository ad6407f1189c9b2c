import HTTP
import Testing

@testable import Server

/// A routes file is read at start: its rules in order, or one line that says what is wrong with it.
@Suite struct RoutesFileTests {
    @Test func theRulesAreKeptInTheFilesOrderAndListedAsWritten() throws {
        let text = #"{"/api/*": "/$1", "/posts/:category": "/posts?category=:category"}"#
        let routes = try RoutesFile(bytes: Array(text.utf8), path: "routes.json")
        #expect(routes.rewrites.rules.map(\.source) == ["/api/*", "/posts/:category"])
        // An editor's byte order mark is skipped, as Node's `require` skips it for json-server.
        let marked = try RoutesFile(bytes: DataFileContent.byteOrderMark + Array(text.utf8), path: "routes.json")
        #expect(marked.rewrites.rules.map(\.source) == ["/api/*", "/posts/:category"])
        #expect(routes.rewrites.rewrite("/api/posts/js") == "/posts?category=js")
        #expect(
            String(decoding: routes.rules, as: UTF8.self)
                == #"{"/api/*":"/$1","/posts/:category":"/posts?category=:category"}"#)
    }

    @Test(arguments: [
        ("", "routes.json"),
        ("{\"/a\": \"/b\",}", "line 1"),
        ("[\"/a\"]", "JSON object"),
        ("{\"api/*\": \"/$1\"}", "'api/*' must start with '/'"),
        ("{\"/a\": 1}", "'/a' must name a URL"),
        ("{\"/bad/:id([)\": \"/x\"}", "'/bad/:id([)' cannot be used"),
    ])
    func aFileThatCannotBeUsedSaysWhyInOneLine(text: String, words: String) {
        do {
            _ = try RoutesFile(bytes: Array(text.utf8), path: "routes.json")
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.description.contains(words), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }
}
