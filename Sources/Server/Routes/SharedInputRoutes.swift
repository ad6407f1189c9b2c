import Domain
import Foundation
import HTTP
import Reactive
import Storage

extension Router {
    /// `POST /frameworks/selection`: the selection is journaled and answered once applied here, so every
    /// instance's `/events` clients get it with one id (docs/architecture-instances.md).
    mutating func addSharedFrameworkSelection(_ site: SeedSite) {
        let (frameworks, journal) = (site.models.frameworks, site.journal)
        post("/frameworks/selection") { request in
            let key = try request.idempotencyKey()
            let name: String = try request.jsonBody(fields: ["name"]).required("name")
            guard frameworks.list.value.contains(where: { $0.name == name }) else {
                throw FrameworkError.unknownName(name)
            }
            return .later { respond in
                SeedInput.append(.frameworks, .init(name: name), key: key, to: journal) { result in
                    respond(
                        Self.answer(result) { shared in
                            // NB: the first request's name when the key was committed before.
                            let selected = frameworks.list.value.first { $0.name == shared.payload.name }
                            return try .json(["selected": selected], status: 202)
                        })
                }
            }
        }
    }

    /// `POST /albums/selection`: the selection is journaled (every instance shows it pending) and answered
    /// once applied here; this server downloads it and journals the image for all.
    mutating func addSharedAlbumSelection(_ site: SeedSite) {
        let (albums, downloads) = (site.models.albums, site.inputs.selection.downloads)
        post("/albums/selection") { request in
            let key = try request.idempotencyKey()
            let body = try request.jsonBody(fields: ["url", "id"])
            let given: (url: String?, id: Int?) = (try body.optional("url"), try body.optional("id"))
            let url: String
            switch given {
            case (let given?, nil): url = given
            case (nil, let id?):
                guard let album = albums.album(id: id) else { throw AlbumError.unknownPhoto(id: id) }
                url = album.url
            default: throw HTTPError.badRequest("give either 'url' or 'id'", code: "invalid_field")
            }
            try AlbumViewModel.check(url: url)
            return .later { respond in
                downloads.select(url: url, key: key) { result in
                    respond(Self.answer(result) { try .json(["url": $0.payload.url ?? url], status: 202) })
                }
            }
        }
    }

    /// `POST /posts/refresh` and `POST /albums/refresh` fetch once (the embedded set, or the upstream through
    /// the view model's own network manager) and journal what came, answered once applied here. Refreshes without a key that arrive
    /// while one is in flight share it (one upstream request, one entry); a keyed one is its own (its key is
    /// journaled with it).
    mutating func addSharedRefreshes(_ site: SeedSite) {
        let (models, journal) = (site.models, site.journal)
        let posts: @Sendable (String?) -> Future<Response, Never> = { key in
            Self.sharedRefresh(
                journal, .posts, key: key, embedded: EmbeddedData.posts,
                upstream: models.posts.load(), payload: { .init(posts: $0) }
            ) { $0.posts }
        }
        let albums: @Sendable (String?) -> Future<Response, Never> = { key in
            Self.sharedRefresh(
                journal, .albums, key: key, embedded: EmbeddedData.albums,
                upstream: models.albums.load(),
                payload: { .init(albums: $0) }
            ) { $0.albums }
        }
        let sharedPosts = SharedLoad(responding: { posts(nil) })
        let sharedAlbums = SharedLoad(responding: { albums(nil) })
        post("/posts/refresh") { request in
            let key = try request.idempotencyKey()
            try request.acceptNoInput()
            return key == nil ? sharedPosts.reply() : Self.later(posts(key))
        }
        post("/albums/refresh") { request in
            let key = try request.idempotencyKey()
            try request.acceptNoInput()
            return key == nil ? sharedAlbums.reply() : Self.later(albums(key))
        }
    }

    /// The reply that answers `response` once it resolves.
    private static func later(_ response: Future<Response, Never>) -> Reply {
        .later { respond in response.subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: respond)) }
    }

    /// Journals a refresh: the embedded set as an input (every instance reloads it), or the list the
    /// upstream gave this server (every instance shows that list); resolves to 200 with the list applied
    /// here (the first request's, when its key was committed before).
    private static func sharedRefresh<Item: Encodable & Sendable>(
        _ journal: SeedStore, _ topic: SeedInput.Topic, key: String?, embedded: [Item],
        upstream: Future<[Item], NetworkError>?, payload: @escaping @Sendable ([Item]?) -> SeedInput.Payload,
        list: @escaping @Sendable (SeedInput.Payload) -> [Item]?
    ) -> Future<Response, Never> {
        Future { promise in
            // NB: Reactive's Future takes its promise under its lock, from any thread (Combine's has no @Sendable).
            nonisolated(unsafe) let promise = promise
            let respond: @Sendable (Response) -> Void = { promise(.success($0)) }
            guard let upstream else {
                SeedInput.append(topic, payload(nil), key: key, to: journal) { result in
                    respond(Self.answer(result) { try .json(list($0.payload) ?? embedded) })
                }
                return
            }
            upstream.subscribe(
                Subscribers.Sink(
                    receiveCompletion: { completion in
                        if case .failure(let error) = completion { respond(Response(error: error)) }
                    },
                    receiveValue: { items in
                        SeedInput.append(topic, payload(items), key: key, to: journal) { result in
                            respond(Self.answer(result) { try .json(list($0.payload) ?? embedded) })
                        }
                    }))
        }
    }

    /// The answer to a shared input: `success` once it is applied here, or the refusal (503 while the
    /// database is unreachable).
    private static func answer(
        _ result: Result<SeedInput.Appended, JournalError>, success: (SeedInput.Appended) throws -> Response
    ) -> Response {
        switch result {
        case .success(let shared):
            return (try? success(shared)) ?? Response(error: .internalError)
        case .failure(let error): return Response(error: error)
        }
    }
}
