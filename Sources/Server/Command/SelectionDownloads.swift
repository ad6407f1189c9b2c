import Domain
import Foundation
import Reactive
import Storage
import Support
import Synchronization

/// The downloads of the album selections a server shares through its journal: the instance that took a
/// selection downloads it and journals its outcome (the image, or why there is none) for every instance
/// (docs/architecture-instances.md, "Replicate inputs or replay emissions"). With several instances on one
/// PostgreSQL (`DocumentDownloadClaims`) the downloader holds the selection's claim, and should it die another
/// instance takes the claim over and downloads ("A downloader that dies").
///
/// Whether a selection is still pending is the album view model's own answer: its pipeline waits for the
/// image entry of its latest selection only (`AlbumViewModel.awaitsImage(of:)`; `switchToLatest` cancelled
/// the older waits, and an image entry ends its selection's).
final class SelectionDownloads: Sendable {
    private let store: SeedStore
    /// The journal's download claims when several servers share it (PostgreSQL); nil for one process.
    private let claims: (any DocumentDownloadClaims)?
    /// The album view model, whose pipeline says which selection still waits for its image.
    private let albums: AlbumViewModel
    /// Downloads a selection from the network (on the instance that downloads it).
    private let loader: any DataLoader
    /// Where a downloaded image is encoded and journaled (nil: where the download finished).
    private let workers: WorkerPool?
    /// Downloads in flight, by the journal id of their selection.
    private let downloads = Mutex<[Int64: AnyCancellable]>([:])
    /// The selections whose download claim this instance holds (`DocumentDownloadClaims`).
    private let claimed = Mutex<Set<Int64>>([])
    /// How often every instance checks whether the latest selection, still pending, lost its downloader
    /// (docs/architecture-instances.md, "A downloader that dies").
    static let takeoverCheck = 1.0

    init(store: SeedStore, albums: AlbumViewModel, loader: any DataLoader, workers: WorkerPool?) {
        self.store = store
        claims = store.claims
        self.albums = albums
        self.loader = loader
        self.workers = workers
    }

    /// Cancels the downloads (shutdown).
    func cancel() {
        downloads.withLock { $0.removeAll() }
    }

    /// The selection `seq` of `url` is applied here (the view model waits for its image entry): a download
    /// of an older selection here is moot (`switchToLatest`), so it is cancelled and its claim given back;
    /// and this one is watched for a downloader that dies.
    func applied(selection seq: Int64, url: String) {
        let moot = downloads.withLock { downloads in
            defer { downloads = downloads.filter { $0.key >= seq } }
            return downloads.filter { $0.key < seq }
        }
        for (older, download) in moot {
            download.cancel()
            release(older)
        }
        watch(selection: seq, url: url)
    }

    /// The selection `seq` of `url`, still pending when the server started: with several instances one of
    /// them takes the download over once its downloader's claim is gone; one process (SQLite) died during
    /// the download, so it downloads again itself.
    func resume(selection seq: Int64, url: String) {
        if claims == nil { download(url, selection: seq) } else { watch(selection: seq, url: url) }
    }

    /// Journals a selection of `url` (already checked) with its download claim, then downloads it here and
    /// journals the outcome. Should this instance die first, another one takes the claim over (`takeOver`).
    /// A client's repeat (its `key` committed before) is answered from the first selection and takes no
    /// claim: the first one's downloader, or a taker-over, downloads.
    func select(
        url: String, key: String?, completion: @escaping @Sendable (Result<SeedInput.Appended, JournalError>) -> Void
    ) {
        let payload = SeedInput.Payload(url: url)
        guard let json = try? SeedInput.encoded(payload) else {
            return completion(.failure(.failed("the input cannot be encoded")))
        }
        guard claims != nil else {
            return store.append(topic: SeedInput.Topic.selection.rawValue, json: json, key: key) { [self] result in
                completion(result.map { SeedInput.Appended($0, payload) })
                // NB: a repeat (its key committed before) was downloaded, or is being, by its first request.
                if case .success(let appended) = result, !appended.repeated { download(url, selection: appended.seq) }
            }
        }
        store.appendClaimed(
            topic: SeedInput.Topic.selection.rawValue, json: json, key: key,
            claimed: { [self] seq in claimed.withLock { _ = $0.insert(seq) } }
        ) { [self] result in
            completion(result.map { SeedInput.Appended($0, payload) })
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
            // NB: a 16 MiB image is 22 MB of base64 JSON to encode: done on a worker, not on the loop that
            // finished the download (inline when the queue is full), nor on the store's write thread.
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
        albums.awaitsImage(of: seq)
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
        var entry: SeedInput.Entry
        switch result {
        case .success(let image):
            entry = SeedInput.imageEntry(url: url, selection: seq, image: image)
        case .failure(let failure):
            var payload = SeedInput.Payload(url: url, selection: seq)
            payload.failed = failure.reason
            guard let json = try? SeedInput.encoded(payload), let failed = SeedStore.entry(json) else {
                return release(seq)
            }
            entry = failed
        }
        let shared: @Sendable (Result<Int64, JournalError>) -> Void = { [self] result in
            release(seq)
            if case .failure(let error) = result {
                Log.warning("album image of \(url.prefix(200)) not shared: \(error); another instance may take it")
            }
        }
        // The outcome's key makes it one entry, whichever instances downloaded (one process: no key needed).
        let key = claims == nil ? nil : Self.outcomeKey(seq)
        store.append(topic: SeedInput.Topic.image.rawValue, entry: entry, key: key) { shared($0.map(\.seq)) }
    }
}
