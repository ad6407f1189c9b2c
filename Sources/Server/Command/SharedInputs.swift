import Domain
import Foundation
import HTTP
import LibEvent
import Reactive
import Storage
import Support
import Synchronization

/// The inputs other than todo writes, shared by several instances through the journal
/// (docs/architecture-instances.md, "Replicate inputs or replay emissions"): framework selections and
/// refreshes of the embedded sets are replicated as inputs; the movie keyword is debounced by the instance
/// that took it and journaled once it settled; an album selection is journaled, downloaded once by the
/// instance that took it (`SelectionDownloads`), and its image (or its failure) journaled for every instance; an upstream refresh
/// is fetched once and the list it got journaled. Every instance applies the entries in journal order by
/// sending each into its view model's own input with the entry's id (an image entry answers the album view
/// model's wait for it, `JournaledImages`), so the view models' own pipelines make what every instance
/// serves, and each event they cause carries the entry's id: every instance sends the same events with the
/// same ids.
final class SharedInputs: Sendable {
    /// Journal topics of the inputs (the todo writes are `todos`).
    enum Topic: String, CaseIterable {
        case frameworks, movies, selection, image, posts, albums
        /// A keyed `PUT /movies/keyword`: the key's record, which every instance skips (the keyword that
        /// settles is journaled as `movies`).
        case keyword
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

    let journal: SeedStore
    let models: LiveStateModels
    /// The album view model's loader: the wait for a selection's image entry. What it waits for is the
    /// latest selection applied here that is still pending: the view model's own `switchToLatest` cancelled
    /// the waits of the older ones, and an image entry ends its selection's wait.
    private let images: JournaledImages
    /// The selections' downloads, one instance each, and their outcomes journaled.
    let selections: SelectionDownloads
    private let keywords = Mutex<AnyCancellable?>(nil)
    /// The journal id of the newest posts and albums entries applied here (`loadAtStart` shows an older
    /// list only if none newer came meanwhile).
    private let appliedLists = Mutex<[Topic: Int64]>([:])
    /// The newest selection sent into the album view model (`resumePending`).
    private let shownSelection = Mutex<(seq: Int64, url: String)?>(nil)

    init(
        journal: SeedStore, models: LiveStateModels, images: JournaledImages, loader: any DataLoader,
        workers: WorkerPool? = nil
    ) {
        self.journal = journal
        self.models = models
        self.images = images
        selections = SelectionDownloads(store: journal, images: images, loader: loader, workers: workers)
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
        selections.cancel()
    }

    /// Commits one input entry under `key` (the client's `Idempotency-Key`, or nil: one of the server's);
    /// `completion` gets it once applied here — the first request's payload when the key was committed
    /// before — or why not.
    func append(
        _ topic: Topic, _ payload: Payload, key: String? = nil,
        completion: @escaping @Sendable (Result<Shared, JournalError>) -> Void
    ) {
        guard let json = try? Self.encoded(payload) else {
            return completion(.failure(.failed("the input cannot be encoded")))
        }
        journal.append(topic: topic.rawValue, json: json, key: key) { completion($0.map { Shared($0, payload) }) }
    }

    /// A committed input: its journal id and payload (the first request's, `repeated`, when its key was
    /// committed before).
    struct Shared: Sendable {
        var seq: Int64
        var payload: Payload
        var repeated: Bool

        init(_ appended: JournalAppended, _ payload: Payload) {
            seq = appended.seq
            repeated = appended.repeated
            let first = appended.first.flatMap { try? JSONDecoder().decode(Payload.self, from: Data($0.utf8)) }
            self.payload = first ?? payload
        }
    }

    static func encoded(_ payload: Payload) throws -> String {
        try JSONCoding.text(payload)
    }

    // MARK: Applying

    /// Applies one input entry (on the journal's loop, in journal order): sends it into its view model's input
    /// with its journal id, which the view model's output carries to its event.
    func apply(seq: Int64, topic name: String, json: String) {
        guard let topic = Topic(rawValue: name),
            let payload = try? JSONDecoder().decode(Payload.self, from: Data(json.utf8))
        else {
            Log.error("journal entry \(seq) (\(name.prefix(40))) cannot be read; skipped")
            return
        }
        apply(seq: seq, topic: topic, payload)
    }

    private func apply(seq: Int64, topic: Topic, _ payload: Payload) {
        switch topic {
        case .frameworks:
            models.frameworks.committed.send(Committed(seq: seq, change: payload.name ?? ""))
        case .movies:
            models.movies.committed.send(Committed(seq: seq, change: payload.keyword ?? ""))
        case .selection:
            if let url = payload.url {
                showPending(selection: seq, url: url)
                selections.applied(selection: seq, url: url)
            }
        case .image:
            guard let selection = payload.selection else { return }
            // The view model's own `switchToLatest` shows it if the selection is still its latest (its wait
            // for an older one was cancelled by the newer selection).
            let bytes = payload.data.flatMap { Data(base64Encoded: $0) }
            let outcome: JournaledImages.Outcome =
                if let bytes {
                    .success((bytes, payload.contentType ?? "application/octet-stream"))
                } else {
                    .failure(LoadFailure(.other, payload.failed ?? "the download failed"))
                }
            images.deliver(selection: selection, seq: seq, outcome)
        case .posts:
            appliedLists.withLock { $0[.posts] = seq }
            models.posts.committed.send(Committed(seq: seq, change: payload.posts))
        case .albums:
            appliedLists.withLock { $0[.albums] = seq }
            models.albums.committedAlbums.send(Committed(seq: seq, change: payload.albums))
        case .keyword: break
        }
    }

    /// Sends the selection `seq` of `url` into the album view model, whose own pipeline shows it pending and
    /// waits for its image entry (`JournaledImages`).
    private func showPending(selection seq: Int64, url: String) {
        shownSelection.withLock { $0 = (seq, url) }
        images.expect(selection: seq)
        models.albums.imageUrlSubject.send(url)
    }

    // MARK: Start

    /// Applies the journal's newest selection, image and keyword entries up to `lastSeq` (the entries after
    /// it are replayed or `follow`'s): a restarted server shows the selection, its image and the keyword's
    /// result it showed, and a new instance what the others show. Call before the events are attached (these
    /// are the current values, not new events). Blocks until the journal answered (startup only; 10 s at most).
    func restore(upTo lastSeq: Int64) {
        var newest: [Topic: (seq: Int64, payload: Payload)] = [:]
        for topic in [Topic.selection, .image, .movies] {
            let answer = Mutex<(seq: Int64, json: String)?>(nil)
            let done = DispatchSemaphore(value: 0)
            journal.latest(topic: topic.rawValue) { result in
                if case .success(let entry?) = result { answer.withLock { $0 = entry } }
                done.signal()
            }
            guard done.wait(timeout: .now() + 10) == .success, let entry = answer.withLock({ $0 }),
                entry.seq <= lastSeq, let payload = try? JSONDecoder().decode(Payload.self, from: Data(entry.json.utf8))
            else { continue }
            newest[topic] = (entry.seq, payload)
        }
        if let (seq, payload) = newest[.movies] {
            models.movies.committed.send(Committed(seq: seq, change: payload.keyword ?? ""))
        }
        // The newest image is shown (as it was, even when a newer selection is still pending); then that
        // newer selection is recorded as pending.
        if let (seq, image) = newest[.image], let selection = image.selection, let url = image.url {
            showPending(selection: selection, url: url)
            apply(seq: seq, topic: .image, image)
        }
        if let (seq, selection) = newest[.selection], seq > (newest[.image]?.payload.selection ?? 0),
            let url = selection.url
        {
            showPending(selection: seq, url: url)
        }
    }

    /// Once the entries up to the start are applied: the newest selection, when no image entry answered it,
    /// is downloaded again, here or by another instance (`SelectionDownloads.resume`).
    func resumePending() {
        guard let (seq, url) = shownSelection.withLock({ $0 }), images.isWaiting(for: seq) else { return }
        selections.resume(selection: seq, url: url)
    }

    /// With `--upstream`: shows the posts and photos of the journal's newest entry (the list another
    /// instance loaded at its start or at a refresh), or, when the journal holds none, fetches them here
    /// once and journals them, so every instance shows one list. Instances that start one after another
    /// fetch once in all; instances that start at the same moment may each fetch and journal, and then all
    /// show the last list journaled.
    /// The fetch is the view model's own (`load()`: the seed's `NetworkManager.getData`).
    func loadAtStart() {
        let models = models
        // NB: the posts and the albums share one upstream (`LiveStateModels`).
        guard models.posts.upstream != nil else { return }
        startList(
            .posts, fetch: { models.posts.load() }, payload: { Payload(posts: $0) }, list: { $0.posts },
            show: { models.posts.show($0) })
        startList(
            .albums, fetch: { models.albums.load() }, payload: { Payload(albums: $0) }, list: { $0.albums },
            show: { models.albums.show($0) })
    }

    private func startList<Item: Sendable>(
        _ topic: Topic, fetch: @escaping @Sendable () -> Future<[Item], NetworkError>?,
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
            fetch()?.subscribe(
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
