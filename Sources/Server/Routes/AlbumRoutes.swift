import Domain
import HTTP
import Reactive

extension Router {
    /// Seed 000's albums: `GET /albums`, `GET /albums/:id`, `POST /albums/refresh`, and the selection:
    /// `POST /albums/selection`, `GET /albums/selection`, `GET /albums/selection/image`.
    ///
    /// Each item is one of jsonplaceholder's photos, so `GET /photos` and `GET /photos/:id` answer the same
    /// list under jsonplaceholder's name; `/albums` is the seed's name (`AlbumViewModel`), kept.
    ///
    /// A bare `GET /albums` (5000 photos, about 1 MB) answers bytes encoded once per change of `albumSubject`.
    mutating func addAlbumRoutes(_ app: App) {
        let albums = app.models.albums
        let snapshot = app.lists.albums
        let refresh = SharedLoad { albums.refresh() }

        let list: Handler = { request in
            try ListQuery.reply(request, cached: snapshot) { albums.albumSubject.value }
        }
        let item: Handler = { request in
            let id = try request.require("id", as: Int.self)
            guard let album = albums.album(id: id) else { throw AlbumError.unknownPhoto(id: id) }
            return try .json(album)
        }
        for prefix in ["/photos", "/albums"] {
            get(prefix, list)
            get(prefix + "/:id", item)
        }
        get("/albums/selection") { _ in
            let state = AlbumSelectionReply(image: albums.imageSubject.value, status: albums.selectionStatus.value)
            return try .json(state, status: state.image == nil ? 404 : 200)
        }
        get("/albums/selection/image") { _ in
            guard let image = albums.imageSubject.value else { throw Self.noImage }
            // NB: the bytes came from anywhere; they are only ever served as the raster type they sniffed as,
            // never sniffed again by the browser, and never run (`ImageFormat` refuses SVG and HTML).
            let headers: HTTPHeaders = [
                "Content-Type": image.contentType, "X-Content-Type-Options": "nosniff",
                "Content-Security-Policy": ContentSecurityPolicy.image,
            ]
            return .response(Response(status: 200, headers: headers, body: image.data))
        }
        if let shared = app.shared {
            addSharedAlbumSelection(shared)
            return
        }
        post("/albums/refresh") { request in
            _ = try request.idempotencyKey()  // NB: checked, not stored: one server answers before it forgets
            try request.acceptNoInput()
            // `NetworkManager.getData(endPoint: .photos)` again (the embedded set without --upstream), shared
            // by every refresh that arrives while it runs.
            return refresh.reply()
        }
        post("/albums/selection") { request in
            _ = try request.idempotencyKey()
            let body = try request.jsonBody(fields: ["url", "id"])
            let given: (url: String?, id: Int?) = (try body.optional("url"), try body.optional("id"))
            let url: String
            switch given {
            case (let given?, nil):
                try albums.select(url: given)
                url = given
            case (nil, let id?): url = try albums.select(id: id)
            default: throw HTTPError.badRequest("give either 'url' or 'id'", code: "invalid_field")
            }
            return try .json(["url": url], status: 202)
        }
    }

    static let noImage = HTTPError.notFound("No image has been downloaded yet; POST /albums/selection first.")
}
