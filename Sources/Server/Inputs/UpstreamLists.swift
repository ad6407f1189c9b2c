import Domain
import Reactive
import Storage
import Support
import Synchronization

/// The posts and the photo list as inputs of the seeds' store: a refresh (or the first load with
/// `--upstream`) commits the list it got (nil: the embedded set), and each committed list goes into its view
/// model's own input (`committed`, `committedAlbums`), so every instance shows one list.
final class UpstreamLists: Sendable {
    private let posts: PostViewModel
    private let albums: AlbumViewModel
    /// The journal id of the newest posts and albums entries applied here (`loadAtStart` shows an older
    /// list only if none newer came meanwhile).
    private let applied = Mutex<[SeedInput.Topic: Int64]>([:])

    /// Takes the committed lists of `journal`.
    init(posts: PostViewModel, albums: AlbumViewModel, journal: SeedStore) {
        self.posts = posts
        self.albums = albums
        journal.deliver(.posts) { [weak self] seq, payload in self?.applyPosts(seq: seq, payload) }
        journal.deliver(.albums) { [weak self] seq, payload in self?.applyAlbums(seq: seq, payload) }
    }

    /// A committed posts list, with its entry's id.
    func applyPosts(seq: Int64, _ payload: SeedInput.Payload) {
        applied.withLock { $0[.posts] = seq }
        posts.committed.send(Committed(seq: seq, change: payload.posts))
    }

    /// A committed photo list, with its entry's id.
    func applyAlbums(seq: Int64, _ payload: SeedInput.Payload) {
        applied.withLock { $0[.albums] = seq }
        albums.committedAlbums.send(Committed(seq: seq, change: payload.albums))
    }

    /// With `--upstream`: shows the posts and photos of the journal's newest entry (the list another
    /// instance loaded at its start or at a refresh), or, when the journal holds none, fetches them here
    /// once and commits them, so every instance shows one list. Instances that start one after another
    /// fetch once in all; instances that start at the same moment may each fetch and commit, and then all
    /// show the last list committed. The fetch is the view model's own (`load()`: the seed's
    /// `NetworkManager.getData`).
    func loadAtStart(_ journal: SeedStore) {
        let (posts, albums) = (posts, albums)
        // NB: the posts and the albums share one upstream (`LiveStateModels`).
        guard posts.upstream != nil else { return }
        startList(
            .posts, journal, fetch: { posts.load() }, payload: { .init(posts: $0) }, list: { $0.posts },
            show: { posts.show($0) })
        startList(
            .albums, journal, fetch: { albums.load() }, payload: { .init(albums: $0) }, list: { $0.albums },
            show: { albums.show($0) })
    }

    private func startList<Item: Sendable>(
        _ topic: SeedInput.Topic, _ journal: SeedStore,
        fetch: @escaping @Sendable () -> Future<[Item], NetworkError>?,
        payload: @escaping @Sendable ([Item]) -> SeedInput.Payload,
        list: @escaping @Sendable (SeedInput.Payload) -> [Item]?, show: @escaping @Sendable ([Item]) -> Void
    ) {
        journal.latest(topic: topic.rawValue) { [self] result in
            if case .success(let entry?) = result, let stored = SeedInput.Payload(json: entry.json),
                let items = list(stored)
            {
                // NB: where entries are applied: an entry of the topic applied meanwhile is newer.
                if applied.withLock({ ($0[topic] ?? 0) < entry.seq }) { show(items) }
                return
            }
            fetch()?.subscribe(
                Subscribers.Sink(
                    receiveCompletion: { completion in
                        if case .failure(let error) = completion {
                            Log.warning("\(topic.rawValue) not loaded from the upstream at start: \(error)")
                        }
                    },
                    receiveValue: { items in
                        SeedInput.append(topic, payload(items), to: journal) { result in
                            // NB: not committed (the database went away): shown here only, as without sharing.
                            if case .failure = result { show(items) }
                        }
                    }))
        }
    }
}
