/// The downloaded image of the selected photo: seed 000's `UIImage`, kept as bytes with their content type.
///
/// It encodes as the `image` topic's value `{"url", "contentType", "bytes"}`, where `bytes` is the size;
/// the bytes themselves are served by `GET /albums/selection/image`.
package struct AlbumImage: Encodable, Equatable, Sendable {
    /// The URL the image was downloaded from.
    package var url: String
    /// The `Content-Type` of the download, e.g. `image/png`.
    package var contentType: String
    /// The image bytes.
    package var data: [UInt8]

    /// Creates an image value.
    package init(url: String, contentType: String, data: [UInt8]) {
        self.url = url
        self.contentType = contentType
        self.data = data
    }

    private enum CodingKeys: String, CodingKey {
        case url, contentType, bytes
    }

    /// Encodes `{"url", "contentType", "bytes": size}`.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(contentType, forKey: .contentType)
        try container.encode(data.count, forKey: .bytes)
    }
}
