/// A jsonplaceholder photo, as seed 000 decodes it: `{"albumId", "id", "title", "url", "thumbnailUrl"}`.
package struct AlbumModel: Codable, Equatable, Identifiable, Sendable {
    /// The album the photo belongs to (1...100 in the embedded set).
    package var albumId: Int
    /// The photo's id (1...5000 in the embedded set).
    package var id: Int
    /// One line.
    package var title: String
    /// The full-size image (600 px), e.g. `/placeholder/600/92c952` in the embedded set.
    package var url: String
    /// The thumbnail (150 px), e.g. `/placeholder/150/92c952` in the embedded set.
    package var thumbnailUrl: String

    /// Creates a photo value.
    package init(albumId: Int, id: Int, title: String, url: String, thumbnailUrl: String) {
        self.albumId = albumId
        self.id = id
        self.title = title
        self.url = url
        self.thumbnailUrl = thumbnailUrl
    }
}
