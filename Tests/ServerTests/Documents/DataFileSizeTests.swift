import Domain
import Reactive
import StrictJSON
import Testing

@testable import Server

/// `DocumentResource.fileSize`, kept with every write, against the file as the rewrite makes it: what
/// `--max-file-mb` weighs a write by.
@Suite struct DataFileSizeTests {
    @Test func eachResourcesSizeIsWhatTheRewriteWritesForIt() throws {
        let posts = DocumentResource(
            name: "posts", kind: .collection,
            documents: try (1...3).map { id in
                try StoredDocument(
                    id: DocumentID(.integer(Int64(id))), object: object(#"{"id":\#(id),"t":[[1,{"a":[]}]]}"#))
            })
        let profile = DocumentResource(
            name: "profile", kind: .singular,
            documents: [StoredDocument(id: nil, object: try object(#"{"n":{"m":1}}"#))])
        let empty = DocumentResource(name: "tags", kind: .collection, documents: [])
        func written() -> Int {
            DataFileContent.fileBytes([posts, profile, empty].map { ($0.name, $0.kind, $0.items) }).count
        }
        func estimated() -> Int { [posts, profile, empty].reduce(0) { $0 + $1.fileSize } }
        // NB: within a few bytes per resource (its name's line); exact for every item.
        let slack = written() - estimated()
        #expect(abs(slack) <= 3 * 16)
        let deep = try object(
            #"{"id":9,"x":"# + String(repeating: "[", count: 30) + "1,2" + String(repeating: "]", count: 30) + "}")
        posts.committed.send(DocumentEntry(seq: 1, resource: "posts", id: DocumentID(.integer(9)), document: deep))
        posts.committed.send(DocumentEntry(seq: 2, resource: "posts", id: DocumentID(.integer(1)), document: nil))
        posts.committed.send(
            DocumentEntry(seq: 3, resource: "posts", id: DocumentID(.integer(2)), document: try object(#"{"id":2}"#)))
        profile.committed.send(
            DocumentEntry(seq: 4, resource: "profile", id: nil, document: try object(#"{"n":[1,2,3]}"#)))
        #expect(written() > 2000, "the deep item's indentation is counted")
        #expect(written() - estimated() == slack, "every write changed the estimate by what it changed the file")
    }

    @Test func theSizesSummedFromTheTreesAtLoadAreTheSizesCountedFromTheBytes() throws {
        let text = #"""
            {"posts": [{"id": 1, "t": [[1, {"a": []}], "x"]}, {"t": {"deep": [[[2]]]}}, {"id": 3}],
             "profile": {"n": {"m": [1, 2]}}, "empty": []}
            """#
        let bytes = Array(text.utf8)
        var offset = 0
        let content = try DataFileContent(
            parts: { () throws(DataFileError) in
                let part = Array(bytes[offset..<min(offset + 7, bytes.count)])
                offset += part.count
                return part
            },
            whole: { bytes }, idField: "id")
        for resource in content.resources {
            #expect(resource.indentation != nil)
            let fromTrees = DocumentResource(
                name: resource.name, kind: resource.kind, documents: resource.documents,
                indentation: resource.indentation)
            let fromBytes = DocumentResource(name: resource.name, kind: resource.kind, documents: resource.documents)
            #expect(fromTrees.fileSize == fromBytes.fileSize, "\(resource.name)")
        }
    }

    private func object(_ text: String) throws -> JSONObject {
        guard case .object(let object) = try JSONValue(parsing: Array(text.utf8)) else { throw NotAnObject() }
        return object
    }

    private struct NotAnObject: Error {}
}
