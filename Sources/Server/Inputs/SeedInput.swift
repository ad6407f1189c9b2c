import Dispatch
import Domain
import Foundation
import Storage
import StrictJSON
import Support
import Synchronization

/// The seeds' inputs other than todo writes, as their entries hold them: each is a singular resource of the
/// seeds' store, committed with its entry and shared by every instance through the journal
/// (docs/architecture-instances.md, "Replicate inputs or replay emissions"). Framework selections and
/// refreshes of the embedded sets are replicated as inputs; the movie keyword is debounced by the instance
/// that took it and committed once it settled (`MovieKeywordInput`); an album selection is committed,
/// downloaded once by the instance that took it, and its image (or its failure) committed for every instance
/// (`AlbumSelectionInput`); an upstream refresh is fetched once and the list it got committed
/// (`UpstreamLists`). Every instance sends each committed entry, in journal order, into its view model's own
/// input with the entry's id (`SeedInputs`), so each event the view model emits carries that id on every
/// instance.
///
/// ```swift
/// SeedInput.append(.frameworks, .init(name: "Combine"), key: nil, to: journal) { result in … }
/// ```
enum SeedInput {
    /// The resource (journal topic) of each input; the todo writes are `todos`.
    enum Topic: String, CaseIterable {
        case frameworks, movies, selection, image, posts, albums
        /// A keyed `PUT /movies/keyword`: the key's record, which every instance skips (the keyword that
        /// settles is committed as `movies`).
        case keyword
    }

    /// The JSON of an input entry; each topic uses some of the fields.
    struct Payload: Codable {
        var name: String?
        var keyword: String?
        var url: String?
        /// An image entry: the journal id of the selection it answers.
        var selection: Int64?
        var contentType: String?
        /// An image entry: the bytes, base64.
        var data: String?
        /// An image entry: why the selection cannot be shown.
        var failed: String?
        /// A refresh entry: the list an upstream answered; nil for the embedded set.
        var posts: [Post]?
        var albums: [AlbumModel]?

        /// The payload of an entry's JSON; nil when it is not one.
        init?(json: String) {
            guard let payload = try? JSONDecoder().decode(Payload.self, from: Data(json.utf8)) else { return nil }
            self = payload
        }

        /// The payload of an entry's members, as `init(json:)` reads their JSON, without writing and reading
        /// that JSON again (an image entry's `data` is megabytes of base64); nil when it is not one.
        init?(object: JSONObject) {
            self.init()
            for (key, value) in object.members {
                switch (key, value) {
                case (_, .null): continue
                case ("name", .string(let text)): name = text
                case ("keyword", .string(let text)): keyword = text
                case ("url", .string(let text)): url = text
                case ("selection", .integer(let number)): selection = number
                case ("selection", .real(let number)) where Int64(exactly: number) != nil: selection = Int64(number)
                case ("contentType", .string(let text)): contentType = text
                case ("data", .string(let text)): data = text
                case ("failed", .string(let text)): failed = text
                case ("posts", .array), ("albums", .array):
                    // NB: a refresh's list: decoded from its own JSON, as `init(json:)` does.
                    guard
                        let list = try? JSONDecoder().decode(
                            Lists.self, from: Data(JSONObject([key: value]).compactBytes))
                    else { return nil }
                    if let posts = list.posts { self.posts = posts }
                    if let albums = list.albums { self.albums = albums }
                case ("name", _), ("keyword", _), ("url", _), ("selection", _), ("contentType", _), ("data", _),
                    ("failed", _), ("posts", _), ("albums", _):
                    return nil
                default: continue
                }
            }
        }

        /// A refresh's list alone.
        private struct Lists: Decodable {
            var posts: [Post]?
            var albums: [AlbumModel]?
        }

        init(
            name: String? = nil, keyword: String? = nil, url: String? = nil, selection: Int64? = nil,
            posts: [Post]? = nil, albums: [AlbumModel]? = nil
        ) {
            self.name = name
            self.keyword = keyword
            self.url = url
            self.selection = selection
            self.posts = posts
            self.albums = albums
        }
    }

    /// A committed input: its journal id and payload (the first request's, `repeated`, when its key was
    /// committed before).
    struct Appended: Sendable {
        var seq: Int64
        var payload: Payload
        var repeated: Bool

        init(_ appended: JournalAppended, _ payload: Payload) {
            seq = appended.seq
            repeated = appended.repeated
            self.payload = appended.first.flatMap { Payload(json: $0) } ?? payload
        }
    }

    static func encoded(_ payload: Payload) throws -> String {
        try JSONCoding.text(payload)
    }

    /// An entry as the store commits it: its members, and their compact JSON (`JSONObject.compactBytes`).
    struct Entry: Sendable {
        var object: JSONObject
        var body: [UInt8]
    }

    /// The image entry of the selection `seq` of `url`: `image`'s bytes in base64, encoded once and written
    /// into the entry's JSON as they are (base64 needs no escape), with the keys in `encoded`'s order.
    ///
    /// NB: not `encoded` then parsed and written again: a 16 MiB image is 22 MB of base64, which each of those
    /// passes went through character by character.
    static func imageEntry(url: String, selection seq: Int64, image: AlbumImage) -> Entry {
        let base64 = Data(image.data).base64EncodedData()
        let member = { (key: String, value: JSONValue) in JSONObject([key: value]).compactBytes.dropFirst().dropLast() }
        var body: [UInt8] = []
        body.reserveCapacity(base64.count + image.contentType.utf8.count + url.utf8.count + 64)
        body.append(UInt8(ascii: "{"))
        body += member("contentType", .string(image.contentType))
        body += #","data":""#.utf8
        body += base64
        body += #"","#.utf8
        body += member("selection", .integer(seq))
        body.append(UInt8(ascii: ","))
        body += member("url", .string(url))
        body.append(UInt8(ascii: "}"))
        let object = JSONObject([
            "contentType": .string(image.contentType), "data": .string(String(decoding: base64, as: UTF8.self)),
            "selection": .integer(seq), "url": .string(url),
        ])
        return Entry(object: object, body: body)
    }

    /// Commits one input entry under `key` (the client's `Idempotency-Key`, or nil: one of the server's);
    /// `completion` gets it once applied here — the first request's payload when the key was committed
    /// before — or why not.
    static func append(
        _ topic: Topic, _ payload: Payload, key: String? = nil, to journal: SeedStore,
        completion: @escaping @Sendable (Result<Appended, JournalError>) -> Void
    ) {
        guard let json = try? encoded(payload) else {
            return completion(.failure(.failed("the input cannot be encoded")))
        }
        journal.append(topic: topic.rawValue, json: json, key: key) { completion($0.map { Appended($0, payload) }) }
    }

    /// The newest entry of `topic` up to `lastSeq`, with its payload. Blocks until the journal answered
    /// (startup only; 10 s at most).
    static func latest(_ topic: Topic, upTo lastSeq: Int64, in journal: SeedStore) -> (seq: Int64, payload: Payload)? {
        let answer = Mutex<(seq: Int64, json: String)?>(nil)
        let done = DispatchSemaphore(value: 0)
        journal.latest(topic: topic.rawValue) { result in
            if case .success(let entry?) = result { answer.withLock { $0 = entry } }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success, let entry = answer.withLock({ $0 }), entry.seq <= lastSeq,
            let payload = Payload(json: entry.json)
        else { return nil }
        return (entry.seq, payload)
    }
}
