import Domain
import Foundation
import StrictJSON
import Testing

@testable import Server

/// `SeedInput.Payload(object:)`, how a committed entry reaches its view model without its JSON written and
/// read again: it reads every entry as `Payload(json:)` reads the entry's JSON, refusals included. And
/// `SeedInput.imageEntry`, an image's entry written without a JSON round trip: the same JSON as the payload's.
@Suite struct SeedInputPayloadTests {
    /// The fields of a payload, to compare two of them.
    private static func fields(_ payload: SeedInput.Payload?) -> String? {
        guard let payload else { return nil }
        let posts = payload.posts.map { $0.map { "\($0.id):\($0.title)" } }
        let albums = payload.albums.map { $0.map { "\($0.id):\($0.title)" } }
        return [
            payload.name, payload.keyword, payload.url, payload.selection.map(String.init), payload.contentType,
            payload.data, payload.failed, posts.map { $0.joined(separator: ",") },
            albums.map { $0.joined(separator: ",") },
        ].map { $0 ?? "-" }.joined(separator: "|")
    }

    private static func object(_ json: String) throws -> JSONObject {
        guard case .object(let object) = try JSONValue(parsing: Array(json.utf8)) else {
            throw CocoaError(.coderReadCorrupt)
        }
        return object
    }

    @Test(arguments: [
        #"{"name":"Combine"}"#,
        #"{"keyword":"star wars"}"#,
        #"{"url":"http://127.0.0.1:9/a.png"}"#,
        #"{"url":"http://127.0.0.1:9/a.png","selection":41,"contentType":"image/png","data":"iVBORw0KGgo="}"#,
        #"{"url":"http://127.0.0.1:9/a.png","selection":41,"failed":"the server answered 500"}"#,
        #"{"url":null,"name":null,"unknown":[1,{"a":2}]}"#,
        #"{"posts":[{"userId":1,"id":1,"title":"t","body":"b"}],"name":"x"}"#,
        #"{"albums":[{"albumId":1,"id":3,"title":"an album","url":"u","thumbnailUrl":"t"}]}"#,
        #"{"selection":41.0}"#,
        #"{}"#,
    ])
    func anEntryReadsAsItsJSONDoes(json: String) throws {
        let read = SeedInput.Payload(object: try Self.object(json))
        #expect(read != nil)
        #expect(Self.fields(read) == Self.fields(SeedInput.Payload(json: json)))
    }

    @Test(arguments: [
        #"{"url":5}"#, #"{"selection":"41"}"#, #"{"selection":4.5}"#, #"{"data":["x"]}"#, #"{"posts":{"id":1}}"#,
        #"{"posts":[{"id":"one"}]}"#, #"{"albums":[1]}"#, #"{"failed":true}"#,
    ])
    func aMemberOfTheWrongKindIsNoPayloadAsWithItsJSON(json: String) throws {
        #expect(SeedInput.Payload(json: json) == nil)
        #expect(SeedInput.Payload(object: try Self.object(json)) == nil)
    }

    @Test(arguments: ["image/png", #"image/svg+xml; name="a\b""#, "bild/ü"])
    func anImageEntryIsTheCompactJSONOfItsMembersAndOfItsPayload(contentType: String) throws {
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let url = #"http://127.0.0.1:9/a "b"/ü.png"#
        let entry = SeedInput.imageEntry(
            url: url, selection: 41, image: AlbumImage(url: url, contentType: contentType, data: bytes))
        #expect(entry.body == entry.object.compactBytes)
        #expect(try Self.object(String(decoding: entry.body, as: UTF8.self)) == entry.object)
        var payload = SeedInput.Payload(url: url, selection: 41)
        payload.contentType = contentType
        payload.data = Data(bytes).base64EncodedString()
        #expect(String(decoding: entry.body, as: UTF8.self) == (try SeedInput.encoded(payload)))
        let read = SeedInput.Payload(object: entry.object)
        #expect(read?.data.flatMap { Data(base64Encoded: $0) } == Data(bytes))
        #expect(read?.contentType == contentType && read?.selection == 41 && read?.url == url)
    }
}
