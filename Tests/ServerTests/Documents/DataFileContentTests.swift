import Domain
import StrictJSON
import Testing

@testable import Server

/// `DataFileContent`: a data file read item by item, a part at a time, gives what the whole-text read gives.
@Suite struct DataFileContentTests {
    /// The content of `text` read in parts of `size` bytes.
    private func read(_ text: String, partSize size: Int, idField: String = "id") throws(DataFileError)
        -> DataFileContent
    {
        let bytes = Array(text.utf8)
        var offset = 0
        return try DataFileContent(
            parts: { () throws(DataFileError) in
                let part = Array(bytes[offset..<min(offset + size, bytes.count)])
                offset += part.count
                return part
            },
            whole: { bytes }, idField: idField)
    }

    /// Names, kinds, ids and items' bytes, as one comparable text.
    private func summary(_ content: DataFileContent) -> String {
        content.resources.map { resource in
            let items = resource.documents.map { "\($0.id?.key ?? "-")=\(String(decoding: $0.bytes, as: UTF8.self))" }
            return "\(resource.name) \(resource.kind.rawValue) \(items.joined(separator: " "))"
        }.joined(separator: "\n") + " assigned=\(content.assignedIDs) hash=\(content.hash)"
    }

    static let files = [
        "{}",
        " \n{ } \n",
        #"{"posts": [], "profile": {}}"#,
        """
        {
          "posts": [
            {"id": 1, "title": "a \\"quoted\\" title", "tags": ["x", {"deep": [1, 2.5, null, true]}]},
            {"id": "two", "body": "é ∑ 😀 \\u0000 end"},
            {"title": "no id"}
          ],
          "comments": [{"id": 7, "postId": 1}, {"postId": 1}],
          "profile": {"name": "typicode", "n": 1e3}
        }
        """,
        #"{"users": [{"name": "a"}, {"name": "b"}]}"#,
        #"{"users": [{"id": "x1"}, {"name": "b"}]}"#,
    ]

    @Test(arguments: files)
    func givesWhatTheWholeTextReadGivesWhateverThePartSize(text: String) throws {
        let whole = try read(text, partSize: Int.max / 2)
        for size in [1, 2, 3, 7, 64] {
            let parts = try read(text, partSize: size)
            // Random ids differ from run to run: compare those files by their shape.
            if text.contains("x1") {
                #expect(parts.resources.map(\.documents.count) == whole.resources.map(\.documents.count))
                #expect(parts.hash == whole.hash)
            } else {
                #expect(summary(parts) == summary(whole), "parts of \(size) bytes")
            }
        }
        #expect(whole.hash == DataFileContent.hash(Array(text.utf8)))
    }

    @Test func readsAValueOfManyPartsWhole() throws {
        let members = (0..<2_000).map { #""field\#($0)": "\#(String(repeating: "x", count: $0 % 50))""# }
        let text = #"{"profile": {"# + members.joined(separator: ", ") + #"}, "posts": [{"id": 1}]}"#
        let content = try read(text, partSize: 100)
        #expect(content.resources.map(\.name) == ["profile", "posts"])
        #expect(content.resources.first?.documents.first?.object.count == 2_000)
        #expect(content.hash == DataFileContent.hash(Array(text.utf8)))
    }

    static let refused: [(String, String)] = [
        ("", "the file is empty"),
        (#"{"posts": [{"id": 1},]}"#, "not JSON at line 1, column 22"),
        ("{\"posts\": [{\"id\": 1}]}\n{", "not JSON at line 2"),
        (#"{"posts": [{"id": 1}, {"id": 1}]}"#, "two items with id 1"),
        (#"{"posts": [{"id": 1}], "posts": []}"#, "not JSON at line 1"),
        (#"{"db": []}"#, "one of LiveState's own routes"),
        (#"{"posts": [1]}"#, "'posts'[0] is an integer"),
        (#"{"posts": 3}"#, "'posts' holds an integer"),
        (#"{"posts": [{"id": 99999999999999999999}]}"#, "does not fit 64 bits"),
        ("{\"posts\": [{\"id\": 1}]}\u{0}", "NUL byte"),
        (#"{"posts": [{"id": true}]}"#, "an id is an integer or a non-empty string"),
        (#"[]"#, "must hold a JSON object"),
    ]

    @Test(arguments: refused)
    func refusesAsTheWholeTextReadDoesWhateverThePartSize(text: String, expected: String) {
        var messages: Set<String> = []
        for size in [1, 5, Int.max / 2] {
            do {
                _ = try read(text, partSize: size)
                Issue.record("\(text) was read")
            } catch {
                messages.insert(error.description)
            }
        }
        #expect(messages.count == 1)
        #expect(messages.first?.contains(expected) == true, "\(messages)")
    }
}
