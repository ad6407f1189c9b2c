package import Foundation

extension AlbumImage {
    /// The image in `data` downloaded from `url`, typed by its magic bytes; nil when the bytes are not a PNG,
    /// JPEG, GIF or WebP image (the seed's `UIImage(data:)` returning nil).
    package init?(url: String, data: Data) {
        guard let format = ImageFormat(sniffing: data) else { return nil }
        self.init(url: url, contentType: format.contentType, data: Array(data))
    }
}
