import Dispatch
import Domain
import Foundation
import Storage
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
