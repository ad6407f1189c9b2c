package import Foundation
package import Reactive
package import Support
import Synchronization

/// Seed 000's `AlbumViewModel`: the photo list in `albumSubject`, the selected URL in `imageUrlSubject`, and
/// the downloaded image of the latest selection in `imageSubject`.
///
/// The image pipeline is the seed's: a selection (`selections`) → `compactMap(URL)` → a download publisher
/// per selection → `compactMap` to an image → `switchToLatest` → `imageSubject`. A newer selection cancels
/// the older download, so an older image is never emitted after a newer selection.
///
/// Once shared through the server's journal, each input comes in with its entry's id: a photo list through
/// `committedAlbums` (nil: the embedded set), a selection through `selections`, and the image one instance
/// downloaded for it through `committedImages`, which is that selection's "download" on every instance.
/// `albumVersions` and `imageVersions` carry those ids to `/events`.
///
/// ```swift
/// let model = AlbumViewModel(loader: client)
/// try model.select(id: 1)          // imageUrlSubject emits "/placeholder/600/3779b1"; imageSubject its PNG
/// ```
package final class AlbumViewModel: Sendable {
    /// The current photos; a new subscriber receives them first.
    package let albumSubject: CurrentValueSubject<[AlbumModel], Never>
    /// The URL the user selected last (`""` before any selection, as in the seed): each selection's URL as
    /// the pipeline receives it.
    package let imageUrlSubject = CurrentValueSubject<String, Never>("")
    /// Input: each selection, in order, with the journal id of the entry that committed it (nil: selected
    /// here alone, `select(url:)`, and downloaded with the loader). A committed one waits for its own image
    /// entry in `committedImages`, whichever instance downloads it.
    package let selections = PassthroughSubject<AlbumSelection, Never>()
    /// Input: each image entry the journal committed, with its id, in journal order after the selection it
    /// answers; one that answers no selection still awaited is dropped.
    package let committedImages = PassthroughSubject<Committed<AlbumImageEntry>, Never>()
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
    /// The committed selection the pipeline waits for the image of: its latest, until an outcome settles it.
    private let awaited = Mutex<Int64?>(nil)

    /// Starts with `albums` (the embedded 5000 by default); selections made here are downloaded with `loader`
    /// (none: they are recorded but never downloaded).
    package init(albums: [AlbumModel] = EmbeddedData.albums, loader: (any DataLoader)? = nil) {
        albumSubject = CurrentValueSubject(albums)
        versionedAlbums = CurrentValueSubject(Versioned(seq: nil, albums))
        networkManager = nil
        followCommitted()
        addSubscriber(loader: loader)
    }

    /// Starts empty, as the seed's `CurrentValueSubject([AlbumModel]())`, fetches the photos from
    /// `networkManager` at once, and downloads selections made here with `loader` (none: they are recorded
    /// only). With `fetchAtStart` false nothing is fetched now (several instances share the first list one
    /// loaded).
    package init(networkManager: NetworkManager, loader: (any DataLoader)?, fetchAtStart: Bool = true) {
        albumSubject = CurrentValueSubject([])
        versionedAlbums = CurrentValueSubject(Versioned(seq: nil, []))
        self.networkManager = networkManager
        followCommitted()
        addSubscriber(loader: loader)
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

    /// What settles a selection: its image or why there is none, with the journal id of the entry that
    /// brought it (nil: downloaded here), for the selection `selection` (nil: one made here).
    private typealias Outcome = (
        url: String, result: Result<AlbumImage, AlbumDownloadFailure>, seq: Int64?, selection: Int64?
    )

    /// The seed's image pipeline, with each outcome recorded in `selectionStatus`.
    private func addSubscriber(loader: (any DataLoader)?) {
        let subscription =
            selections
            .handleEvents(receiveOutput: { [imageUrlSubject] in imageUrlSubject.send($0.url) })
            .compactMap { [committedImages] selection -> (AlbumSelection, AnyPublisher<Outcome, Never>)? in
                guard let url = URL(string: selection.url) else { return nil }
                if let seq = selection.seq {
                    return (selection, Self.answer(to: seq, url: selection.url, from: committedImages))
                }
                // NB: without a loader a selection made here is recorded only, as before any download.
                guard let loader else { return nil }
                let download = Self.download(selection.url, url, loader: loader)
                return (
                    selection,
                    download.map { (url: $0.url, result: $0.result, seq: nil, selection: nil) }.eraseToAnyPublisher()
                )
            }
            .handleEvents(receiveOutput: { [weak self] selection, _ in
                self?.awaited.withLock { $0 = selection.seq }
                self?.selectionStatus.send(.pending(url: selection.url))
            })
            .map { $0.1 }
            .switchToLatest()
            .sink { [weak self] outcome in
                guard let self else { return }
                awaited.withLock { if $0 == outcome.selection { $0 = nil } }
                settle(url: outcome.url, outcome.result, seq: outcome.seq)
            }
        subscriptions.withLock { $0.append(subscription) }
    }

    /// The "download" of the committed selection `selection` of `url`: the first image entry that answers
    /// it, whichever instance downloaded it; an image entry of any other selection (an older one of the same
    /// URL among them) is not its answer.
    private static func answer(
        to selection: Int64, url: String, from images: PassthroughSubject<Committed<AlbumImageEntry>, Never>
    ) -> AnyPublisher<Outcome, Never> {
        images
            .first { $0.change.selection == selection }
            .map { entry in (url: url, result: entry.change.image(url: url), seq: entry.seq, selection: selection) }
            .eraseToAnyPublisher()
    }

    /// Whether the pipeline waits for the image entry of the committed selection `seq`: its latest selection,
    /// still pending (a newer selection's `switchToLatest` cancelled the wait, and an image entry ends it).
    package func awaitsImage(of seq: Int64) -> Bool {
        awaited.withLock { $0 == seq }
    }

    /// The download of one selection: the image, or why there is none, never a failure of the stream.
    package static func download(
        _ urlString: String, _ url: URL, loader: any DataLoader
    ) -> AnyPublisher<(url: String, result: Result<AlbumImage, AlbumDownloadFailure>), Never> {
        loader.dataTaskPublisher(for: url)
            .map { output in Self.image(from: output, url: urlString) }
            // NB: the seed lets a failed download end the whole selection stream; here it is an
            // outcome like bytes that are not an image, and the next selection still works.
            .catch { error in Just(.failure(AlbumDownloadFailure(error))) }
            .map { (url: urlString, result: $0) }
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

    /// Sends `url` into the pipeline (the table view's `didSelectRowAt`), and so into `imageUrlSubject`: an
    /// `http(s)` URL, or a path on this server (`/placeholder/600/3779b1`, as the embedded photos have).
    package func select(url: String) throws(AlbumError) {
        try Self.check(url: url)
        selections.send(AlbumSelection(url: url))
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

    /// Sends the `url` of photo `id` into the pipeline and returns it.
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
