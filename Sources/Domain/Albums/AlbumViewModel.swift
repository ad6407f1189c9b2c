package import Foundation
package import Reactive
package import Support
import Synchronization

/// Seed 000's `AlbumViewModel`: the photo list in `albumSubject`, the selected URL in `imageUrlSubject`, and
/// the downloaded image of the latest selection in `imageSubject`.
///
/// The image pipeline is the seed's: `imageUrlSubject` → `compactMap(URL)` → a download publisher per URL →
/// `compactMap` to an image → `switchToLatest` → `imageSubject`. A newer selection cancels the older
/// download, so an older image is never emitted after a newer selection.
///
/// Once shared through the server's journal, a photo list comes in through `committedAlbums` (nil: the
/// embedded set) and a selection's outcome through `settle(url:image:failure:seq:)`, each with its entry's
/// id; `albumVersions` and `imageVersions` carry those ids to `/events`.
///
/// ```swift
/// let model = AlbumViewModel(loader: client)
/// try model.select(id: 1)          // imageUrlSubject emits "/placeholder/600/3779b1"; imageSubject its PNG
/// ```
package final class AlbumViewModel: Sendable {
    /// The current photos; a new subscriber receives them first.
    package let albumSubject: CurrentValueSubject<[AlbumModel], Never>
    /// The URL the user selected last (`""` before any selection, as in the seed).
    package let imageUrlSubject = CurrentValueSubject<String, Never>("")
    /// The image downloaded for the latest selection; nil before the first one.
    package let imageSubject = CurrentValueSubject<AlbumImage?, Never>(nil)
    /// Whether the latest selection is still downloading or failed (then `imageSubject` keeps the older image).
    package let selectionStatus = CurrentValueSubject<AlbumSelectionStatus, Never>(.settled)
    /// Input: each photo list the journal committed (nil: the embedded set), with its journal id, in
    /// journal order.
    package let committedAlbums = PassthroughSubject<Committed<[AlbumModel]?>, Never>()
    /// The current photos with the journal id of the entry that made them (nil: the list at start, or one
    /// loaded here alone); a new subscriber receives the current version first.
    package var albumVersions: AnyPublisher<Versioned<[AlbumModel], Never>, Never> {
        versionedAlbums.eraseToAnyPublisher()
    }
    /// The image of the latest selection with the journal id of the entry that brought it (nil: downloaded
    /// here alone); nil before the first image.
    package var imageVersions: AnyPublisher<Versioned<AlbumImage?, Never>, Never> {
        versionedImage.eraseToAnyPublisher()
    }

    private let versionedAlbums: CurrentValueSubject<Versioned<[AlbumModel], Never>, Never>
    private let versionedImage = CurrentValueSubject<Versioned<AlbumImage?, Never>, Never>(Versioned(seq: nil, nil))

    /// Loads `URL/photos`; nil without `--upstream` (the embedded set is the source).
    private let networkManager: NetworkManager?
    private let subscriptions = Mutex<[AnyCancellable]>([])

    /// Starts with `albums` (the embedded 5000 by default); selections are downloaded with `loader` (none:
    /// selections are recorded but never downloaded).
    package init(albums: [AlbumModel] = EmbeddedData.albums, loader: (any DataLoader)? = nil) {
        albumSubject = CurrentValueSubject(albums)
        versionedAlbums = CurrentValueSubject(Versioned(seq: nil, albums))
        networkManager = nil
        followCommitted()
        if let loader { addSubscriber(loader: loader) }
    }

    /// Starts empty, as the seed's `CurrentValueSubject([AlbumModel]())`, fetches the photos from
    /// `networkManager` at once, and downloads selections with `loader` (none: selections are recorded
    /// only). With
    /// `fetchAtStart` false nothing is fetched now (several instances share the first list one loaded).
    package init(networkManager: NetworkManager, loader: (any DataLoader)?, fetchAtStart: Bool = true) {
        albumSubject = CurrentValueSubject([])
        versionedAlbums = CurrentValueSubject(Versioned(seq: nil, []))
        self.networkManager = networkManager
        followCommitted()
        if let loader { addSubscriber(loader: loader) }
        if fetchAtStart { fetchData() }
    }

    private func followCommitted() {
        let following = committedAlbums.sink { [weak self] entry in
            self?.show(entry.change ?? EmbeddedData.albums, seq: entry.seq)
        }
        subscriptions.withLock { $0.append(following) }
    }

    /// Emits `albums` in `albumSubject` and, with `seq`, in `albumVersions` (nil: a list loaded here alone, not from the journal).
    package func show(_ albums: [AlbumModel], seq: Int64? = nil) {
        albumSubject.send(albums)
        versionedAlbums.send(Versioned(seq: seq, albums))
    }

    /// The seed's image pipeline, with each outcome recorded in `selectionStatus`.
    private func addSubscriber(loader: any DataLoader) {
        let subscription =
            imageUrlSubject
            .compactMap { urlString in
                URL(string: urlString).map { (urlString, $0) }
            }
            .handleEvents(receiveOutput: { [selectionStatus] urlString, _ in
                selectionStatus.send(.pending(url: urlString))
            })
            .map { urlString, url in Self.download(urlString, url, loader: loader) }
            .switchToLatest()
            .sink { [weak self] outcome in self?.settle(url: outcome.url, outcome.result, seq: outcome.seq) }
        subscriptions.withLock { $0.append(subscription) }
    }

    /// The download of one selection: the image, or why there is none, never a failure of the stream; with
    /// the journal id of the entry that brought the answer (`LoadResponse.journalSeq`; nil: fetched here).
    package static func download(
        _ urlString: String, _ url: URL, loader: any DataLoader
    ) -> AnyPublisher<(url: String, result: Result<AlbumImage, AlbumDownloadFailure>, seq: Int64?), Never> {
        loader.dataTaskPublisher(for: url)
            .map { output in (Self.image(from: output, url: urlString), output.response.journalSeq) }
            // NB: the seed lets a failed download end the whole selection stream; here it is an
            // outcome like bytes that are not an image, and the next selection still works.
            .catch { error in Just((.failure(AlbumDownloadFailure(error)), nil)) }
            .map { (url: urlString, result: $0.0, seq: $0.1) }
            .eraseToAnyPublisher()
    }

    /// Shows the outcome of the latest selection: the image (and the selection settled), or why not; `seq`
    /// is the journal id of the entry that brought it (nil: downloaded here alone).
    package func settle(url: String, _ result: Result<AlbumImage, AlbumDownloadFailure>, seq: Int64? = nil) {
        switch result {
        case .success(let image): settle(url: url, image: image, failure: nil, seq: seq)
        case .failure(let failure): settle(url: url, image: nil, failure: failure.reason, seq: seq)
        }
    }

    /// `settle` with the failure as its reason, as the shared journal carries it: `seq` is the journal id of
    /// the entry that brought the outcome (nil: downloaded here alone).
    package func settle(url: String, image: AlbumImage?, failure reason: String?, seq: Int64? = nil) {
        if let image {
            imageSubject.send(image)
            versionedImage.send(Versioned(seq: seq, image))
            selectionStatus.send(.settled)
        } else {
            selectionStatus.send(.failed(url: url, reason: reason ?? "the download failed"))
        }
    }

    /// The image in a download, or why there is none (the seed's `compactMap(UIImage.init(data:))`).
    private static func image(
        from output: (data: Data, response: LoadResponse), url: String
    ) -> Result<AlbumImage, AlbumDownloadFailure> {
        guard (200..<300).contains(output.response.statusCode) else {
            return .failure(.status(output.response.statusCode))
        }
        guard let image = AlbumImage(url: url, data: output.data) else {
            return .failure(.notAnImage(contentType: output.response.value(forHTTPHeaderField: "Content-Type")))
        }
        return .success(image)
    }

    /// The photo with `id`.
    package func album(id: Int) -> AlbumModel? {
        let albums = albumSubject.value
        // The embedded and jsonplaceholder sets are ordered by id from 1: try the direct index first.
        // NB: `id` comes from a URL and may be Int.min, where `id - 1` traps.
        if id > 0, albums.indices.contains(id - 1), albums[id - 1].id == id { return albums[id - 1] }
        return albums.first { $0.id == id }
    }

    /// Sends `url` into `imageUrlSubject` (the table view's `didSelectRowAt`): an `http(s)` URL, or a path
    /// on this server (`/placeholder/600/3779b1`, as the embedded photos have).
    package func select(url: String) throws(AlbumError) {
        try Self.check(url: url)
        imageUrlSubject.send(url)
    }

    /// Refuses a `url` that `select(url:)` refuses: empty, or neither http(s) with a host nor a path.
    package static func check(url: String) throws(AlbumError) {
        guard !url.isEmpty else { throw .emptyURL }
        guard isDownloadable(url) else { throw .invalidURL(url) }
    }

    /// Whether `url` names something the loader can fetch: an absolute http(s) URL with a host, or a path.
    private static func isDownloadable(_ url: String) -> Bool {
        guard let parsed = URL(string: url) else { return false }
        if let scheme = parsed.scheme?.lowercased() {
            return (scheme == "http" || scheme == "https") && !(parsed.host ?? "").isEmpty
        }
        return url.hasPrefix("/")
    }

    /// Sends the `url` of photo `id` into `imageUrlSubject` and returns it.
    @discardableResult
    package func select(id: Int) throws(AlbumError) -> String {
        guard let album = album(id: id) else { throw .unknownPhoto(id: id) }
        try select(url: album.url)
        return album.url
    }

    /// The seed's album fetch: loads the photos and emits them; a failure keeps the current photos.
    package func fetchData() {
        refresh().subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { _ in }))
    }

    /// Loads the photos again (`POST /albums/refresh`): on success they are emitted before the returned
    /// future delivers them; on failure the current photos stay. Without an upstream it reloads the
    /// embedded set.
    package func refresh() -> Future<[AlbumModel], NetworkError> {
        guard let networkManager else {
            let embedded = reloadEmbedded()
            return Future { promise in promise(.success(embedded)) }
        }
        return networkManager.getData(endPoint: .photos, type: AlbumModel.self) { [weak self] in
            self?.show($0, seq: nil)
        }
    }

    /// The seed's `getData(endPoint: .photos)` on this model's network manager, without showing what it
    /// loads: the server journals that list, and every instance shows it once committed (`committedAlbums`).
    /// Nil without an upstream.
    package func load() -> Future<[AlbumModel], NetworkError>? {
        networkManager?.getData(endPoint: .photos, type: AlbumModel.self)
    }

    /// Loads the embedded set again and emits it: what `POST /albums/refresh` does without `--upstream`.
    @discardableResult
    package func reloadEmbedded() -> [AlbumModel] {
        show(EmbeddedData.albums, seq: nil)
        return EmbeddedData.albums
    }
}
