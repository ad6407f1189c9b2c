import Domain
import Foundation
import HTTP
import LibEvent
import Reactive
import Storage
import Synchronization

/// The inputs other than todo writes, shared by several instances through the journal
/// (docs/architecture-instances.md, "Replicate inputs or replay emissions"): framework selections and
/// refreshes of the embedded sets are replicated as inputs; the movie keyword is debounced by the instance
/// that took it and journaled once it settled; an album selection is journaled, downloaded once by the
/// instance that took it, and its image (or its failure) journaled for every instance; an upstream refresh
/// is fetched once and the list it got journaled. Every instance applies the entries in journal order,
/// and each event they cause takes the entry's id, so every instance sends the same events with the same ids.
final class SharedInputs: Sendable {
    /// Journal topics of the inputs (the todo writes are `todos`).
    enum Topic: String {
        case frameworks, movies, selection, image, posts, albums
    }

    /// The JSON of an input entry; each topic uses some of the fields.
    struct Payload: Codable {
        var name: String?
        var keyword: String?
        var url: String?
        /// An image entry: the journal id of the selection it answers.
        var selection: Int64?
        var contentType: String?
        /// An image entry: the bytes, base64.
        var data: String?
        /// An image entry: why the selection cannot be shown.
        var failed: String?
        /// A refresh entry: the list an upstream answered; nil for the embedded set.
        var posts: [Post]?
        var albums: [AlbumModel]?
    }

    let journal: any Journal
    let models: LiveStateModels
    private let ids: EventIDSource
    private let loader: any DataLoader
    /// The upstream of `--upstream`, fetched once per refresh by the instance that took it.
    let upstream: NetworkManager?
    /// The journal id of the latest selection applied here: an image for an older one is not shown
    /// (`switchToLatest` across instances; every instance decides alike, in journal order).
    private let latestSelection = Mutex<Int64>(0)
    /// Downloads in flight, by the journal id of their selection.
    private let downloads = Mutex<[Int64: AnyCancellable]>([:])
    private let keywords = Mutex<AnyCancellable?>(nil)
    /// The journal id of the newest posts and albums entries applied here (`loadAtStart` shows an older
    /// list only if none newer came meanwhile).
    private let appliedLists = Mutex<[Topic: Int64]>([:])

    init(journal: any Journal, models: LiveStateModels, ids: EventIDSource, loader: any DataLoader, upstream: URL?) {
        self.journal = journal
        self.models = models
        self.ids = ids
        self.loader = loader
        self.upstream = upstream.map { NetworkManager(baseURL: $0, loader: loader) }
        // The debounce runs where the keyword was typed; what settled is journaled for every instance.
        let subscription = models.movies.debouncedKeyword.sink { [weak self] keyword in
            self?.append(.movies, Payload(keyword: keyword)) { result in
                if case .failure(let error) = result {
                    Log.warning("movie keyword not shared: \(error)")
                }
            }
        }
        keywords.withLock { $0 = subscription }
    }

    /// Stops sharing keywords and cancels downloads (shutdown).
    func cancel() {
        keywords.withLock { $0 = nil }
        downloads.withLock { $0.removeAll() }
    }

    /// Commits one input entry; `completion` gets its journal id once applied here, or why not.
    func append(_ topic: Topic, _ payload: Payload, completion: @escaping @Sendable (Result<Int64, TodoError>) -> Void)
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(payload) else {
            return completion(.failure(.storage("the input cannot be encoded")))
        }
        journal.append(topic: topic.rawValue, json: String(decoding: data, as: UTF8.self), completion: completion)
    }

    /// Journals a selection of `url` (already checked), then downloads it here and journals the outcome.
    func select(url: String, completion: @escaping @Sendable (Result<Int64, TodoError>) -> Void) {
        append(.selection, Payload(url: url)) { [self] result in
            completion(result)
            guard case .success(let seq) = result, let parsed = URL(string: url) else { return }
            let download = AlbumViewModel.download(url, parsed, loader: loader).sink { [weak self] outcome in
                self?.shareImage(outcome.result, url: url, selection: seq)
            }
            downloads.withLock { $0[seq] = download }
        }
    }

    private func shareImage(_ result: Result<AlbumImage, AlbumDownloadFailure>, url: String, selection seq: Int64) {
        downloads.withLock { _ = $0.removeValue(forKey: seq) }
        // NB: a newer selection already journaled makes this download moot; journaling it anyway would only
        // cost a row, since every instance skips it.
        guard latestSelection.withLock({ $0 }) <= seq else { return }
        var payload = Payload(url: url, selection: seq)
        switch result {
        case .success(let image):
            payload.contentType = image.contentType
            payload.data = Data(image.data).base64EncodedString()
        case .failure(let failure):
            payload.failed = failure.reason
        }
        append(.image, payload) { result in
            if case .failure(let error) = result {
                Log.warning("album image of \(url.prefix(200)) not shared: \(error); the selection stays pending")
            }
        }
    }

    // MARK: Applying

    /// Applies one input entry (on the journal's loop, in journal order); its event takes the entry's id.
    func apply(seq: Int64, topic name: String, json: String) {
        guard let topic = Topic(rawValue: name),
            let payload = try? JSONDecoder().decode(Payload.self, from: Data(json.utf8))
        else {
            Log.error("journal entry \(seq) (\(name.prefix(40))) cannot be read; skipped")
            return
        }
        let id = UInt64(seq) * EventIDSource.journalBlock
        switch topic {
        case .frameworks:
            ids.pinned(id, for: .frameworks) { _ = try? models.frameworks.select(name: payload.name ?? "") }
        case .movies:
            ids.pinned(id, for: .movies) { models.movies.apply(keyword: payload.keyword ?? "") }
        case .selection:
            latestSelection.withLock { $0 = seq }
            models.albums.recordSelection(url: payload.url ?? "")
        case .image:
            guard payload.selection == latestSelection.withLock({ $0 }), let url = payload.url else { return }
            let image = payload.data.flatMap { Data(base64Encoded: $0) }.map {
                AlbumImage(url: url, contentType: payload.contentType ?? "application/octet-stream", data: Array($0))
            }
            ids.pinned(id, for: .image) { models.albums.settle(url: url, image: image, failure: payload.failed) }
        case .posts:
            appliedLists.withLock { $0[.posts] = seq }
            ids.pinned(id, for: .posts) {
                if let posts = payload.posts { models.posts.posts.send(posts) } else { models.posts.reloadEmbedded() }
            }
        case .albums:
            appliedLists.withLock { $0[.albums] = seq }
            ids.pinned(id, for: .albums) {
                if let albums = payload.albums {
                    models.albums.albumSubject.send(albums)
                } else {
                    models.albums.reloadEmbedded()
                }
            }
        }
    }

    // MARK: Start

    /// With `--upstream`: shows the posts and photos of the journal's newest entry (the list another
    /// instance loaded at its start or at a refresh), or, when the journal holds none, fetches them here
    /// once and journals them, so every instance shows one list. Instances that start one after another
    /// fetch once in all; instances that start at the same moment may each fetch and journal, and then all
    /// show the last list journaled.
    func loadAtStart() {
        guard let upstream else { return }
        let models = models
        startList(
            .posts, fetch: { upstream.getData(endPoint: .posts, type: Post.self) }, payload: { Payload(posts: $0) },
            list: { $0.posts }, show: { models.posts.posts.send($0) })
        startList(
            .albums, fetch: { upstream.getData(endPoint: .photos, type: AlbumModel.self) },
            payload: { Payload(albums: $0) }, list: { $0.albums }, show: { models.albums.albumSubject.send($0) })
    }

    private func startList<Item: Sendable>(
        _ topic: Topic, fetch: @escaping @Sendable () -> Future<[Item], NetworkError>,
        payload: @escaping @Sendable ([Item]) -> Payload, list: @escaping @Sendable (Payload) -> [Item]?,
        show: @escaping @Sendable ([Item]) -> Void
    ) {
        journal.latest(topic: topic.rawValue) { [self] result in
            if case .success(let entry?) = result,
                let stored = try? JSONDecoder().decode(Payload.self, from: Data(entry.json.utf8)),
                let items = list(stored)
            {
                // NB: on the journal's loop, as `apply`: an entry of the topic applied meanwhile is newer.
                if appliedLists.withLock({ ($0[topic] ?? 0) < entry.seq }) { show(items) }
                return
            }
            fetch().subscribe(
                Subscribers.Sink(
                    receiveCompletion: { completion in
                        if case .failure(let error) = completion {
                            Log.warning("\(topic.rawValue) not loaded from the upstream at start: \(error)")
                        }
                    },
                    receiveValue: { [self] items in
                        append(topic, payload(items)) { result in
                            // NB: not journaled (the database went away): shown here only, as without sharing.
                            if case .failure = result { show(items) }
                        }
                    }))
        }
    }
}
