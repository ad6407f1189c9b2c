import Domain
import HTTP

/// The body of `GET /albums/selection`: the image on show, and what became of a newer selection.
///
/// `{"url","contentType","bytes"}` for the current image (as the `image` topic), plus `"pending": {"url"}`
/// while the latest selection downloads or `"failed": {"url","reason"}` when it could not be shown. Before
/// the first image the reply is a 404 whose error body carries the same `pending`/`failed`, so a page can
/// tell "nothing selected" from "still loading" and "failed".
struct AlbumSelectionReply: Encodable {
    let image: AlbumImage?
    let status: AlbumSelectionStatus

    private enum CodingKeys: String, CodingKey {
        case error, message, pending, failed
    }

    private struct Pending: Encodable { let url: String }
    private struct Failed: Encodable {
        let url: String
        let reason: String
    }

    func encode(to encoder: any Encoder) throws {
        if let image {
            try image.encode(to: encoder)
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        if image == nil {
            try container.encode(Router.noImage.code, forKey: .error)
            try container.encode(Router.noImage.message, forKey: .message)
        }
        switch status {
        case .settled: break
        case .pending(let url): try container.encode(Pending(url: url), forKey: .pending)
        case .failed(let url, let reason): try container.encode(Failed(url: url, reason: reason), forKey: .failed)
        }
    }
}
