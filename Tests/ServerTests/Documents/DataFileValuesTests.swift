import Testing

@testable import Server

/// `DataFileValues`: a person's save replaces the lists of values and `$schema`; the routes stay as at start.
@Suite struct DataFileValuesTests {
    private func content(_ text: String) throws -> DataFileContent {
        try DataFileContent(bytes: Array(text.utf8), idField: "id")
    }

    private func text(_ value: DataFileValue?) -> String? {
        value.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    @Test func servesTheListsOfValuesAndNotSchema() throws {
        let start = try content(#"{"$schema": "s", "tags": ["a"], "posts": [], "n": [1]}"#)
        let values = DataFileValues(start.values, order: start.order, resources: [])
        #expect(values.served == ["tags", "n"])
        #expect(text(values.value("$schema")) == #""s""#)
        #expect(values.snapshot.order == ["$schema", "tags", "posts", "n"])
    }

    @Test func leavesOutAListNamedAsAResourceOfTheDatabase() throws {
        let start = try content(#"{"posts": ["a"], "tags": ["b"]}"#)
        let values = DataFileValues(start.values, order: start.order, resources: ["posts"])
        #expect(values.served == ["tags"])
        #expect(values.value("posts") == nil)
    }

    @Test func takesASavesListsAndSchemaAndItsOrder() throws {
        let start = try content(#"{"$schema": "s", "tags": ["a"], "posts": []}"#)
        let values = DataFileValues(start.values, order: start.order, resources: [])
        let notes = values.update(
            from: try content(#"{"posts": [], "tags": ["b", 2], "$schema": "t"}"#), resources: ["posts"])
        #expect(notes.isEmpty)
        #expect(text(values.value("tags")) == #"["b",2]"#)
        #expect(text(values.value("$schema")) == #""t""#)
        #expect(values.snapshot.order == ["posts", "tags", "$schema"])
    }

    @Test func dropsSchemaASaveDropsAndKeepsAListASaveDrops() throws {
        let start = try content(#"{"$schema": "s", "tags": ["a"], "posts": []}"#)
        let values = DataFileValues(start.values, order: start.order, resources: [])
        _ = values.update(from: try content(#"{"posts": []}"#), resources: ["posts"])
        #expect(values.value("$schema") == nil)
        // A served list keeps its last elements until a restart, as a resource whose key a save dropped.
        #expect(text(values.value("tags")) == #"["a"]"#)
    }

    @Test func keepsANewListForTheFileAndSaysItIsServedAfterARestart() throws {
        let start = try content(#"{"posts": []}"#)
        let values = DataFileValues(start.values, order: start.order, resources: [])
        let notes = values.update(from: try content(#"{"posts": [], "tags": ["x"]}"#), resources: ["posts"])
        #expect(notes == ["'tags' is new; restart the server to serve it"])
        #expect(values.served.isEmpty)
        #expect(text(values.value("tags")) == #"["x"]"#)
    }

    @Test func leavesAResourceSavedAsAListToTheResource() throws {
        let start = try content(#"{"posts": [{"id": 1}]}"#)
        let values = DataFileValues(start.values, order: start.order, resources: [])
        let notes = values.update(from: try content(#"{"posts": [1, 2]}"#), resources: ["posts"])
        #expect(notes == ["'posts' is now a list of values; restart the server to serve it as one"])
        #expect(values.value("posts") == nil)
    }
}
