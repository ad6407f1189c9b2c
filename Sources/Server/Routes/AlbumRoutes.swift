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
    mutating func addAlbumRoutes(_ site: SeedSite) {
        let albums = site.models.albums
        let snapshot = site.lists.albums
        let live = site.live.albums

        let list: Handler = { request in
            try ListQuery.reply(request, cached: snapshot, live: live) { albums.albumSubject.value }
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
        addListRefresh(
            "/albums/refresh", .albums, journal: site.journal, embedded: EmbeddedData.albums,
            upstream: { albums.load() }, payload: { .init(albums: $0) }, list: { $0.albums })
        addAlbumSelection(site)
    }

    /// `POST /albums/selection`: the selection is committed (every instance shows it pending) and answered
    /// once applied here; this server downloads it and commits the image for all (`SelectionDownloads`).
    private mutating func addAlbumSelection(_ site: SeedSite) {
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
                    respond(Response.committed(result) { try .json(["url": $0.payload.url ?? url], status: 202) })
                }
            }
        }
    }

    static let noImage = HTTPError.notFound("No image has been downloaded yet; POST /albums/selection first.")
}
