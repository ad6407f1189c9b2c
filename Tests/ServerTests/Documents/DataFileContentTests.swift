import Domain
import StrictJSON
import Testing

@testable import Server

/// `DataFileContent`: a data file read item by item, a part at a time, gives what the whole-text read gives.
@Suite struct DataFileContentTests {
    /// The content of `text` read in parts of `size` bytes (the file's size told when `sized`).
    private func read(_ text: String, partSize size: Int, idField: String = "id", sized: Bool = false)
        throws(DataFileError) -> DataFileContent
    {
        let bytes = Array(text.utf8)
        var offset = 0
        return try DataFileContent(
            parts: { () throws(DataFileError) in
                let part = Array(bytes[offset..<min(offset + size, bytes.count)])
                offset += part.count
                return part
            },
            whole: { bytes }, idField: idField, size: sized ? bytes.count : nil)
    }

    /// Names, kinds, ids and items' bytes, the kept values and the keys' order, as one comparable text.
    private func summary(_ content: DataFileContent) -> String {
        content.resources.map { resource in
            let items = resource.documents.map { "\($0.id?.key ?? "-")=\(String(decoding: $0.bytes, as: UTF8.self))" }
            return "\(resource.name) \(resource.kind.rawValue) \(items.joined(separator: " "))"
        }.joined(separator: "\n")
            + content.values.map { "\n\($0.name) value \(String(decoding: $0.bytes, as: UTF8.self))" }.joined()
            + " order=\(content.order) assigned=\(content.assignedIDs) renamed=\(content.renamedIDs)"
            + " hash=\(content.hash)"
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
        """
        {
          "$schema": "./node_modules/json-server/schema.json",
          "posts": [{"id": 1}],
          "tags": ["a", "b \\"c\\""],
          "scores": [1, 2.5, -30, 1e3],
          "mixed": [null, true, {"id": 1}, [1, []], "x"],
          "empty": [],
          "profile": {"name": "x"}
        }
        """,
        #"{"late": [{"id": 1}, {"id": 1}, 12345], "$schema": {"deep": [1, {"a": null}]}, "other": []}"#,
        "\u{FEFF}{\"posts\": [{\"id\": 1}], \"profile\": {}}",
        #"{"posts": [{"id": 1}, {"id": "1", "t": 2}, {"t": 3}, {"id": 1}], "tags": [{"id": 2}, {"id": 2}]}"#,
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

    /// An editor's UTF-8 byte order mark is skipped, as json-server skips it; UTF-16 is named, not "not JSON".
    @Test func aByteOrderMarkIsSkippedAndUTF16IsNamed() throws {
        let text = Array(#"{"posts": [{"id": 1}]}"#.utf8)
        let marked = try DataFileContent(bytes: [0xEF, 0xBB, 0xBF] + text, idField: "id")
        #expect(marked.resources.map(\.name) == ["posts"] && marked.resources[0].documents.count == 1)
        for mark: [UInt8] in [[0xFF, 0xFE], [0xFE, 0xFF]] {
            do {
                _ = try DataFileContent(bytes: mark + [0x7B, 0, 0x7D, 0], idField: "id")
                Issue.record("UTF-16 was read")
            } catch {
                #expect(error.description.contains("UTF-16"), "\(error.description)")
            }
        }
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
        (#"{"posts": [{"id": 1}], "posts": []}"#, "not JSON at line 1"),
        (#"{"db": []}"#, "one of LiveState's own routes"),
        (#"{"version": 3}"#, "'version' holds an integer; each top-level key must hold an array"),
        (#"{"posts": [], "name": "x"}"#, "'name' holds a string; each top-level key must hold an array"),
        (#"{"flag": false}"#, "'flag' holds a boolean"),
        (#"{"nothing": null}"#, "'nothing' holds null"),
        (#"{"schema": 1, "$schema": "x"}"#, "'schema' holds an integer"),
        (#"{"$Schema": "x"}"#, "key '$Schema' cannot be a resource name"),
        (#"{"posts": [{"id": 1}, {"id": [1]}]}"#, "an id is an integer or a non-empty string"),
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

    @Test func keepsSchemaAndListsOfValuesApartFromTheResources() throws {
        let text = """
            {"$schema": "./schema.json", "tags": ["a", "b"], "posts": [{"id": 1}], "mixed": [{"id": 1}, 2],
             "empty": [], "profile": {}}
            """
        for size in [3, Int.max / 2] {
            let content = try read(text, partSize: size)
            #expect(content.resources.map(\.name) == ["posts", "empty", "profile"])
            #expect(content.resources.map(\.kind) == [.collection, .collection, .singular])
            #expect(content.values.map(\.name) == ["$schema", "tags", "mixed"])
            #expect(content.values.map(\.isServed) == [false, true, true])
            #expect(
                content.values.map { String(decoding: $0.bytes, as: UTF8.self) } == [
                    #""./schema.json""#, #"["a","b"]"#, #"[{"id":1},2]"#,
                ])
            #expect(content.values[1].elements.map { String(decoding: $0, as: UTF8.self) } == [#""a""#, #""b""#])
            #expect(content.order == ["$schema", "tags", "posts", "mixed", "empty", "profile"])
        }
    }

    @Test func writesTheValuesBackAsJSONServerWritesThemInTheFileOrder() throws {
        let text = """
            {
              "$schema": "./node_modules/json-server/schema.json",
              "posts": [
                {
                  "id": 1
                }
              ],
              "tags": [
                "a",
                [],
                {
                  "b": null
                }
              ],
              "profile": {}
            }

            """
        let content = try read(text, partSize: 16)
        let models = content.resources.map { DocumentResource(name: $0.name, kind: $0.kind, documents: $0.documents) }
        let written = DataFileContent.fileBytes(
            models.map { ($0.name, $0.kind, $0.items) }, values: content.values, order: content.order)
        #expect(String(decoding: written, as: UTF8.self) == text)
        // A resource the order does not name (a person's save dropped its key) comes after the others.
        let reordered = DataFileContent.fileBytes(
            models.map { ($0.name, $0.kind, $0.items) }, values: content.values, order: ["tags", "$schema"])
        let keys = try JSONValue(parsing: reordered, maxDepth: 8)
        guard case .object(let top) = keys else {
            Issue.record("not an object")
            return
        }
        #expect(top.members.map(\.key) == ["tags", "$schema", "posts", "profile"])
    }

    @Test func servesAnyNumberOfResources() throws {
        let lists = (0..<70).map { #""list\#($0)": [\#($0)]"# }.joined(separator: ", ")
        let collections = (0..<100).map { #""c\#($0)": [{"id": 1}]"# }.joined(separator: ", ")
        let content = try read("{\(lists), \(collections)}", partSize: 64)
        #expect(content.values.count == 70)
        #expect(content.resources.count == 100)
    }

    @Test func givesALaterItemWithATakenIDANewOneAsAPostWould() throws {
        for size in [1, 7, Int.max / 2] {
            let content = try read(
                #"{"posts": [{"id": 3}, {"id": "3", "t": 2}, {"t": 3}, {"id": 1}, {"id": 1}]}"#, partSize: size)
            let posts = try #require(content.resources.first)
            #expect(
                posts.documents.map { String(decoding: $0.bytes, as: UTF8.self) } == [
                    #"{"id":3}"#, #"{"id":4,"t":2}"#, #"{"id":5,"t":3}"#, #"{"id":1}"#, #"{"id":6}"#,
                ])
            #expect(content.assignedIDs)
            #expect(
                content.renamedIDs == [
                    DataFileContent.RenamedID(resource: "posts", index: 1, old: "3", new: "4"),
                    DataFileContent.RenamedID(resource: "posts", index: 4, old: "1", new: "6"),
                ])
        }
    }

    /// A large collection read in bulk is served from the items filed as they were read, with room made
    /// from the file's size; one with an id given at load, or whose items change, is filed again.
    @Test func aCollectionFiledAsItWasReadServesItsItemsByID() throws {
        let posts = (1...5000).map { #"{"id": \#($0), "title": "post \#($0)", "n": \#($0 % 3)}"# }
        let text = """
            {"posts": [\(posts.joined(separator: ",\n"))],
             "late": [\((1...3000).map { #"{"id": \#($0)}"# }.joined(separator: ", ")), {"id": "7"}, {"x": 1}],
             "profile": {"name": "x"}}
            """
        for size in [4096, 1 << 20] {
            let content = try read(text, partSize: size, sized: true)
            #expect(summary(content) == summary(try read(text, partSize: Int.max / 2)))
            let loaded = content.resources[0]
            let filed = try #require(loaded.filed)
            #expect(filed.count == 5000)
            let model = loaded.model()
            #expect(model.items.count == 5000)
            #expect(model.items.documents.map(\.bytes) == loaded.documents.map(\.bytes))
            #expect(
                model.fileSize
                    == DocumentResource(name: "posts", kind: .collection, documents: loaded.documents).fileSize)
            for id in [1, 2500, 5000] {
                let key = try #require(DocumentID(.string(String(id))))
                let item = try #require(model.items.document(key))
                #expect(
                    String(decoding: item.bytes, as: UTF8.self)
                        == #"{"id":\#(id),"title":"post \#(id)","n":\#(id % 3)}"#)
            }
            // Ids given at load: filed from the items in their final order.
            #expect(content.resources[1].filed == nil)
            #expect(content.resources[1].model().items.count == 3002)
            #expect(content.resources[2].filed == nil)
            var changed = loaded
            changed.documents.removeLast()
            #expect(changed.filed == nil)
            #expect(changed.model().items.count == 4999)
        }
    }

    /// The room made for a collection follows the pace of its first items, within one item per 128 bytes
    /// and the largest file read, and is none for a file that shrank since its size was taken.
    @Test func theRoomMadeForACollectionIsBounded() {
        #expect(DataFileContent.expectedItems(100_000_000, sampled: 200_000) == 512_000)
        #expect(DataFileContent.expectedItems(100_000_000, sampled: 10_000) == 781_250)
        #expect(DataFileContent.expectedItems(1 << 40, sampled: 1) == DataFileService.maxFileBytes / 128)
        #expect(DataFileContent.expectedItems(-4096, sampled: 2048) == 0)
    }
}
