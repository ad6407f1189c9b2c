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
/// instance that took it, and its image (or its failure) journaled for every instance; an upstream refresh
/// is fetched once and the list it got journaled. Every instance applies the entries in journal order by
/// sending each into its view model's own input with the entry's id (an image entry answers the album view
/// model's wait for it, `JournaledImages`), so the view models' own pipelines make what every instance
/// serves, and each event they cause carries the entry's id: every instance sends the same events with the
/// same ids.
final class SharedInputs: Sendable {
    /// Journal topics of the inputs (the todo writes are `todos`).
    enum Topic: String {
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

    let journal: any Journal
    /// The journal's download claims when several servers share it (PostgreSQL); nil for one process.
    private let claims: (any DownloadClaims)?
    let models: LiveStateModels
    /// The album view model's loader: the wait for a selection's image entry. What it waits for is the
    /// latest selection applied here that is still pending: the view model's own `switchToLatest` cancelled
    /// the waits of the older ones, and an image entry ends its selection's wait.
    private let images: JournaledImages
    /// Downloads a selection from the network (on the instance that downloads it).
    private let loader: any DataLoader
    /// Where a downloaded image is encoded and journaled (nil: where the download finished).
    private let workers: WorkerPool?
    /// Downloads in flight, by the journal id of their selection.
    private let downloads = Mutex<[Int64: AnyCancellable]>([:])
    /// The selections whose download claim this instance holds (`DownloadClaims`).
    private let claimed = Mutex<Set<Int64>>([])
    /// How often every instance checks whether the latest selection, still pending, lost its downloader
    /// (docs/architecture-instances.md, "A downloader that dies").
    static let takeoverCheck = 1.0
    private let keywords = Mutex<AnyCancellable?>(nil)
    /// The journal id of the newest posts and albums entries applied here (`loadAtStart` shows an older
    /// list only if none newer came meanwhile).
    private let appliedLists = Mutex<[Topic: Int64]>([:])

    init(
        journal: any Journal, models: LiveStateModels, images: JournaledImages, loader: any DataLoader,
        workers: WorkerPool? = nil
    ) {
        self.journal = journal
        self.workers = workers
        self.claims = journal as? any DownloadClaims
        self.models = models
        self.images = images
        self.loader = loader
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

    private static func encoded(_ payload: Payload) throws -> String {
        try JSONCoding.text(payload)
    }

    /// Journals a selection of `url` (already checked) with its download claim, then downloads it here and
    /// journals the outcome. Should this instance die first, another one takes the claim over (`takeOver`).
    /// A client's repeat (its `key` committed before) is answered from the first selection and takes no
    /// claim: the first one's downloader, or a taker-over, downloads.
    func select(url: String, key: String?, completion: @escaping @Sendable (Result<Shared, JournalError>) -> Void) {
        let payload = Payload(url: url)
        guard let json = try? Self.encoded(payload) else {
            return completion(.failure(.failed("the input cannot be encoded")))
        }
        guard let claims else {
            return journal.append(topic: Topic.selection.rawValue, json: json, key: key) { [self] result in
                completion(result.map { Shared($0, payload) })
                // NB: a repeat (its key committed before) was downloaded, or is being, by its first request.
                if case .success(let appended) = result, !appended.repeated { download(url, selection: appended.seq) }
            }
        }
        claims.appendClaimed(
            topic: Topic.selection.rawValue, json: json, key: key,
            claimed: { [self] seq in claimed.withLock { _ = $0.insert(seq) } }
        ) { [self] result in
            completion(result.map { Shared($0, payload) })
            // NB: not claimed (a repeat, a resend after an unknown outcome, or a lock left from an id a
            // rolled-back statement took): `takeOver` settles it.
            guard case .success(let appended) = result, claimed.withLock({ $0.contains(appended.seq) }) else {
                return
            }
            download(url, selection: appended.seq)
        }
    }

    private func download(_ url: String, selection seq: Int64) {
        guard let parsed = URL(string: url) else { return release(seq) }
        let download = AlbumViewModel.download(url, parsed, loader: loader).sink { [weak self] outcome in
            guard let self else { return }
            // NB: a 16 MiB image is 22 MiB of base64 JSON to encode and, on SQLite, to commit and apply (some
            // 300 ms): done on a worker, not on the loop that finished the download (inline when the queue is full).
            let result = outcome.result
            if let workers, workers.submit({ self.shareImage(result, url: url, selection: seq) }) { return }
            shareImage(result, url: url, selection: seq)
        }
        downloads.withLock { $0[seq] = download }
    }

    /// Every `takeoverCheck` seconds while the selection `seq` is the latest and pending, and this instance
    /// is not its downloader: takes the download claim if its holder is gone, and downloads here.
    private func watch(selection seq: Int64, url: String) {
        claims?.after(Self.takeoverCheck) { [weak self] in self?.takeOver(seq, url: url) }
    }

    private func takeOver(_ seq: Int64, url: String) {
        guard let claims, isPending(seq) else { return }
        guard !claimed.withLock({ $0.contains(seq) }) else { return watch(selection: seq, url: url) }
        claims.claim(seq, outcome: Self.outcomeKey(seq)) { [self] taken in
            guard taken else { return watch(selection: seq, url: url) }
            guard isPending(seq) else { return claims.unclaim(seq) }
            claimed.withLock { _ = $0.insert(seq) }
            Log.warning("album selection \(seq): its downloader is gone; downloading \(url.prefix(200)) here")
            download(url, selection: seq)
        }
    }

    /// Whether the selection `seq` is the latest applied here and no outcome of it was (the view model waits
    /// for its image entry).
    private func isPending(_ seq: Int64) -> Bool {
        images.isWaiting(for: seq)
    }

    /// Gives the claim of `seq` back, once its outcome is journaled or moot.
    private func release(_ seq: Int64) {
        claimed.withLock { _ = $0.remove(seq) }
        claims?.unclaim(seq)
    }

    /// The write key of a selection's outcome: journaled once, whichever instance downloaded. NB: it holds
    /// spaces, which no client's `Idempotency-Key` can (TodoRoutes), so a todo write never takes it.
    private static func outcomeKey(_ seq: Int64) -> String { "image of selection \(seq)" }

    private func shareImage(_ result: Result<AlbumImage, AlbumDownloadFailure>, url: String, selection seq: Int64) {
        downloads.withLock { _ = $0.removeValue(forKey: seq) }
        // NB: a newer selection applied here makes this download moot, and so does an outcome another
        // instance journaled first; journaling it anyway would only cost a row, since every instance skips it.
        guard isPending(seq) else { return release(seq) }
        var payload = Payload(url: url, selection: seq)
        switch result {
        case .success(let image):
            payload.contentType = image.contentType
            payload.data = Data(image.data).base64EncodedString()
        case .failure(let failure):
            payload.failed = failure.reason
        }
        guard let data = try? Self.encoded(payload) else { return release(seq) }
        let shared: @Sendable (Result<Int64, JournalError>) -> Void = { [self] result in
            release(seq)
            if case .failure(let error) = result {
                Log.warning("album image of \(url.prefix(200)) not shared: \(error); another instance may take it")
            }
        }
        // The outcome's key makes it one entry, whichever instances downloaded (one process: no key needed).
        let key = claims == nil ? nil : Self.outcomeKey(seq)
        journal.append(topic: Topic.image.rawValue, json: data, key: key) { shared($0.map(\.seq)) }
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
            // `switchToLatest`: a download of an older selection here is moot; it is cancelled, its claim given back.
            let moot = downloads.withLock { downloads in
                defer { downloads = downloads.filter { $0.key >= seq } }
                return downloads.filter { $0.key < seq }
            }
            for (older, download) in moot {
                download.cancel()
                release(older)
            }
            if let url = payload.url {
                showPending(selection: seq, url: url)
                watch(selection: seq, url: url)
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
        images.expect(selection: seq)
        models.albums.imageUrlSubject.send(url)
    }

    // MARK: Start

    /// Applies the input entries `rows` (oldest first) as `follow` did when they were committed (a scratch
    /// copy rebuilding the events of an earlier run: `JournalReplay`). An image whose selection is older
    /// than the rows was shown if no selection among them came before it.
    func replay(_ rows: [JournalRow]) {
        let firstShown = rows.first { $0.topic == Topic.selection.rawValue || $0.topic == Topic.image.rawValue }
        if let firstShown, firstShown.topic == Topic.image.rawValue,
            let image = try? JSONDecoder().decode(Payload.self, from: Data((firstShown.change.document ?? "").utf8)),
            let selection = image.selection, let url = image.url
        {
            showPending(selection: selection, url: url)
        }
        for row in rows { apply(seq: row.seq, topic: row.topic, json: row.change.document ?? "") }
    }

    /// Applies the journal's newest selection, image and keyword entries up to `lastSeq` (the entries after
    /// it are `follow`'s): a restarted server shows the selection, its image and the keyword's result it
    /// showed, and a new instance what the others show. Call before the events are attached (these are the
    /// current values, not new events). Blocks until the journal answered (startup only; 10 s at most).
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
        if let (seq, selection) = newest[.selection], seq > (newest[.image]?.payload.selection ?? 0) {
            if let url = selection.url { showPending(selection: seq, url: url) }
            // Still pending: with several instances one of them takes the download over once its downloader's
            // claim is gone; one process (SQLite) died during the download, so it downloads again itself.
            if let url = selection.url {
                if claims == nil { download(url, selection: seq) } else { watch(selection: seq, url: url) }
            }
        }
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
