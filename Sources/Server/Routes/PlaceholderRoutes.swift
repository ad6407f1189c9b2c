import Domain
import HTTP

extension Router {
    /// `GET /placeholder/{size}/{rrggbb}`: a PNG square of that colour with its size written on it, so the
    /// embedded photos' `url`/`thumbnailUrl` work with no network (jsonplaceholder's via.placeholder.com).
    ///
    /// A size outside 1...2000 or a colour that is not six hex digits is a 400. The image is drawn and
    /// compressed on a worker thread (a 2000 px square is four million pixels to draw), never on the
    /// loop; when every worker is busy and the queue is full, `503 busy`.
    mutating func addPlaceholderRoutes(_ workers: WorkerPool) {
        get("/placeholder/:size/:colour") { request in
            let size = try request.require("size", as: Int.self)
            guard let colour = RGBColour(hex: try request.require("colour", as: String.self)) else {
                throw HTTPError.badRequest("the colour must be six hex digits (rrggbb)", code: "invalid_colour")
            }
            guard let image = PlaceholderImage(size: size, colour: colour) else {
                throw HTTPError.badRequest(
                    "the size must be \(PlaceholderImage.sizes.lowerBound)...\(PlaceholderImage.sizes.upperBound)",
                    code: "invalid_size")
            }
            // NB: the picture depends on the path alone, so clients may keep it for good.
            let headers: HTTPHeaders = [
                "Content-Type": ImageFormat.png.contentType,
                "Cache-Control": "public, max-age=31536000, immutable",
            ]
            return .later { respond in
                workers.reply(respond) { Response(status: 200, headers: headers, body: image.png()) }
            }
        }
    }
}
