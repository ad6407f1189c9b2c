package import Reactive

/// Seed 000's `AlbumViewModel`: the photo list in `albumSubject`, the selected URL in `imageUrlSubject`, and
/// the downloaded image of the latest selection in `imageSubject`.
///
/// ```swift
/// let model = AlbumViewModel()
/// try model.select(id: 1)          // imageUrlSubject emits "/placeholder/600/3779b1"
/// ```
package final class AlbumViewModel: Sendable {
    /// The current photos; a new subscriber receives them first.
    package let albumSubject: CurrentValueSubject<[AlbumModel], Never>
    /// The URL the user selected last (`""` before any selection, as in the seed).
    package let imageUrlSubject = CurrentValueSubject<String, Never>("")
    /// The image downloaded for the latest selection; nil before the first one.
    package let imageSubject = CurrentValueSubject<AlbumImage?, Never>(nil)

    /// Starts with `albums` (the embedded 5000 by default; empty until the first load with `--upstream`).
    package init(albums: [AlbumModel] = EmbeddedData.albums) {
        albumSubject = CurrentValueSubject(albums)
    }

    /// The photo with `id`.
    package func album(id: Int) -> AlbumModel? {
        let albums = albumSubject.value
        // The embedded and jsonplaceholder sets are ordered by id from 1: try the direct index first.
        if albums.indices.contains(id - 1), albums[id - 1].id == id { return albums[id - 1] }
        return albums.first { $0.id == id }
    }

    /// Sends `url` into `imageUrlSubject` (the table view's `didSelectRowAt`).
    package func select(url: String) throws(AlbumError) {
        guard !url.isEmpty else { throw .emptyURL }
        imageUrlSubject.send(url)
    }

    /// Sends the `url` of photo `id` into `imageUrlSubject` and returns it.
    @discardableResult
    package func select(id: Int) throws(AlbumError) -> String {
        guard let album = album(id: id) else { throw .unknownPhoto(id: id) }
        try select(url: album.url)
        return album.url
    }

    /// Loads the embedded set again and emits it: what `POST /albums/refresh` does without `--upstream`.
    @discardableResult
    package func reloadEmbedded() -> [AlbumModel] {
        albumSubject.send(EmbeddedData.albums)
        return EmbeddedData.albums
    }
}
