import Domain
import HTTP

extension Router {
    /// `GET /placeholder/{size}/{rrggbb}`: a PNG square of that colour with its size written on it, so the
    /// embedded photos' `url`/`thumbnailUrl` work with no network (jsonplaceholder's via.placeholder.com).
    ///
    /// A size outside 1...2000 or a colour that is not six hex digits is a 400.
    mutating func addPlaceholderRoutes(_ app: App) {
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
            return .response(Response(status: 200, headers: headers, body: image.png()))
        }
    }
}
