import Domain
import Storage
import Testing

@testable import Server

/// `ResourcesAfterEntries`: the acknowledged changes a file does not show, put back on top of it at start,
/// page after page, as the view models applied them.
@Suite struct ResourcesAfterEntriesTests {
    private let file =
        #"{"posts": [{"id": 1, "t": "a"}, {"id": 2, "t": "b"}, {"id": "x", "t": "s"}], "profile": {"n": 1}}"#

    private func entry(_ seq: Int64, _ resource: String, _ id: String?, _ document: String?) -> JournalEntry {
        JournalEntry(seq: seq, change: JournalChange(collection: resource, id: id, document: document))
    }

    private func texts(_ resource: DataFileContent.Resource) -> [String] {
        resource.documents.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    @Test func pagesOfEntriesLeaveTheItemsTheViewModelsHad() throws {
        let content = try DataFileContent(bytes: Array(file.utf8), idField: "id")
        var loaded = ResourcesAfterEntries(content.resources, idField: "id")
        try loaded.apply(
            [
                entry(1, "posts", "1", #"{"id":1,"t":"A"}"#),  // in place
                entry(2, "posts", "2", nil),  // gone
                entry(3, "posts", "4", #"{"id":4}"#),  // at the end
                entry(4, "users", "1", #"{"id":1}"#),  // not a resource of the file: skipped
                entry(5, "posts", "9", nil),  // nothing to delete
            ][...])
        try loaded.apply(
            [
                entry(6, "posts", "2", #"{"id":2,"t":"again"}"#),  // back, at the end
                entry(7, "posts", "x", #"{"id":"x","t":"S"}"#),
                entry(8, "profile", nil, #"{"n":2}"#),
                entry(9, "posts", "4", #"{"id":4,"t":"four"}"#),
            ][...])
        let resources = loaded.resources
        #expect(resources.map(\.name) == ["posts", "profile"])
        #expect(
            texts(resources[0]) == [
                #"{"id":1,"t":"A"}"#, #"{"id":"x","t":"S"}"#, #"{"id":4,"t":"four"}"#, #"{"id":2,"t":"again"}"#,
            ])
        #expect(resources[0].documents.map { $0.id?.key } == ["1", "x", "4", "2"])
        #expect(texts(resources[1]) == [#"{"n":2}"#])
    }

    @Test func anEntryThatIsNotAnObjectIsAnError() throws {
        let content = try DataFileContent(bytes: Array(file.utf8), idField: "id")
        var loaded = ResourcesAfterEntries(content.resources, idField: "id")
        #expect(throws: (any Error).self) { try loaded.apply([entry(1, "posts", "1", "[1]")][...]) }
        #expect(loaded.resources.map { texts($0) } == content.resources.map { texts($0) })
    }
}
