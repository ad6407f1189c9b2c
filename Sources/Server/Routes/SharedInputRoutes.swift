import Domain
import Foundation
import HTTP
import Reactive

extension Router {
    /// With several instances: a framework selection is journaled and answered once applied here, so every
    /// instance's `/events` clients get it with one id (docs/architecture-instances.md).
    mutating func addSharedFrameworkSelection(_ shared: SharedInputs) {
        let frameworks = shared.models.frameworks
        post("/frameworks/selection") { request in
            let name: String = try request.jsonBody(fields: ["name"]).required("name")
            guard let framework = frameworks.list.value.first(where: { $0.name == name }) else {
                throw FrameworkError.unknownName(name)
            }
            return .later { respond in
                shared.append(.frameworks, .init(name: name)) { result in
                    respond(Self.answer(result) { try .json(["selected": framework], status: 202) })
                }
            }
        }
    }

    /// With several instances: a selection is journaled (every instance shows it pending) and answered once
    /// applied here; this instance downloads it and journals the image for all.
    mutating func addSharedAlbumSelection(_ shared: SharedInputs) {
        let albums = shared.models.albums
        post("/albums/selection") { request in
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
                shared.select(url: url) { result in
                    respond(Self.answer(result) { try .json(["url": url], status: 202) })
                }
            }
        }
    }

    /// With several instances: `POST /posts/refresh` and `POST /albums/refresh` fetch once (the embedded set,
    /// or the upstream through this instance) and journal what came, answered once applied here.
    mutating func addSharedRefreshes(_ shared: SharedInputs) {
        post("/posts/refresh") { request in
            try request.acceptNoInput()
            return Self.sharedRefresh(
                shared, .posts, embedded: EmbeddedData.posts,
                upstream: shared.upstream?.getData(endPoint: .posts, type: Post.self)
            ) { .init(posts: $0) }
        }
        post("/albums/refresh") { request in
            try request.acceptNoInput()
            return Self.sharedRefresh(
                shared, .albums, embedded: EmbeddedData.albums,
                upstream: shared.upstream?.getData(endPoint: .photos, type: AlbumModel.self)
            ) { .init(albums: $0) }
        }
    }

    /// Journals a refresh: the embedded set as an input (every instance reloads it), or the list the
    /// upstream gave this instance (every instance shows that list); answers 200 with the list applied here.
    private static func sharedRefresh<Item: Encodable & Sendable>(
        _ shared: SharedInputs, _ topic: SharedInputs.Topic, embedded: [Item], upstream: Future<[Item], NetworkError>?,
        payload: @escaping @Sendable ([Item]?) -> SharedInputs.Payload
    ) -> Reply {
        .later { respond in
            guard let upstream else {
                shared.append(topic, payload(nil)) { result in
                    respond(Self.answer(result) { try .json(embedded) })
                }
                return
            }
            upstream.subscribe(
                Subscribers.Sink(
                    receiveCompletion: { completion in
                        if case .failure(let error) = completion { respond(Response(error: error)) }
                    },
                    receiveValue: { items in
                        shared.append(topic, payload(items)) { result in
                            respond(Self.answer(result) { try .json(items) })
                        }
                    }))
        }
    }

    /// The answer to a shared input: `success` once it is applied here, or the refusal (503 while the
    /// database is unreachable).
    private static func answer(_ result: Result<Int64, TodoError>, success: () throws -> Response) -> Response {
        switch result {
        case .success:
            return (try? success()) ?? Response(error: .internalError)
        case .failure(let error): return Response(error: error)
        }
    }
}
