package import Foundation
package import Reactive
package import Support
import Synchronization

/// Seed 002's `PostViewModel`: the posts in a `CurrentValueSubject` that every listener shares, loaded
/// through `NetworkManager.getData(endPoint: .posts)` when there is an upstream.
///
/// Once shared through the server's journal, a list comes in through `committed` (nil: the embedded set)
/// with its entry's id; the model shows it in `posts` and, with the id, in `versions`, which `GET /posts` and
/// `/events` serve.
///
/// ```swift
/// let model = PostViewModel()
/// model.posts.sink { print($0.count) }.store(in: &bag)   // 100
/// model.refresh().sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count) })
/// ```
package final class PostViewModel: Sendable {
    /// The current posts; a new subscriber receives them first.
    package let posts: CurrentValueSubject<[Post], Never>
    /// Input: each list the journal committed (nil: the embedded set), with its journal id, in journal order.
    package let committed = PassthroughSubject<Committed<[Post]?>, Never>()
    /// The current posts with the journal id of the entry that made them (nil: the list at start, or one
    /// loaded here alone); a new subscriber receives the current version first.
    package var versions: AnyPublisher<Versioned<[Post], Never>, Never> { versioned.eraseToAnyPublisher() }

    private let versioned: CurrentValueSubject<Versioned<[Post], Never>, Never>
    /// Loads `URL/posts`; nil without `--upstream` (the embedded set is the source).
    private let networkManager: NetworkManager?
    private let subscription = Mutex<AnyCancellable?>(nil)

    /// Starts with `posts` (the embedded set by default) and no upstream.
    package init(posts: [Post] = EmbeddedData.posts) {
        self.posts = CurrentValueSubject(posts)
        versioned = CurrentValueSubject(Versioned(seq: nil, posts))
        networkManager = nil
        followCommitted()
    }

    /// Starts empty, as the seed's `CurrentValueSubject([])`, and fetches from `networkManager` at once
    /// (unless `fetchAtStart` is false: several instances share the first list one of them loaded).
    package init(networkManager: NetworkManager, fetchAtStart: Bool = true) {
        posts = CurrentValueSubject([])
        versioned = CurrentValueSubject(Versioned(seq: nil, []))
        self.networkManager = networkManager
        followCommitted()
        if fetchAtStart { fetchData() }
    }

    private func followCommitted() {
        let following = committed.sink { [weak self] entry in
            self?.show(entry.change ?? EmbeddedData.posts, seq: entry.seq)
        }
        subscription.withLock { $0 = following }
    }

    /// Emits `list` in `posts` and, with `seq`, in `versions` (nil: a list loaded here alone, not from the journal).
    package func show(_ list: [Post], seq: Int64? = nil) {
        posts.send(list)
        versioned.send(Versioned(seq: seq, list))
    }

    /// The post with `id`.
    package func post(id: Int) -> Post? {
        posts.value.first { $0.id == id }
    }

    /// The seed's `fetchData()`: loads the posts and emits them; a failure keeps the current posts.
    package func fetchData() {
        refresh().subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { _ in }))
    }

    /// Loads the posts again (`POST /posts/refresh`). On success the new posts are emitted before the
    /// returned future delivers them; on failure the current posts stay and the future fails. Without an
    /// upstream it reloads the embedded set.
    package func refresh() -> Future<[Post], NetworkError> {
        guard let networkManager else {
            let embedded = reloadEmbedded()
            return Future { promise in promise(.success(embedded)) }
        }
        return networkManager.getData(endPoint: .posts, type: Post.self) { [weak self] in self?.show($0, seq: nil) }
    }

    /// The upstream the posts come from (`--upstream`); nil: the embedded set.
    package var upstream: URL? { networkManager?.baseURL }

    /// The seed's `getData(endPoint: .posts)` on this model's network manager, without showing what it loads:
    /// the server journals that list, and every instance shows it once committed (`committed`). Nil without
    /// an upstream.
    package func load() -> Future<[Post], NetworkError>? {
        // NB: a `Future` is eager: the request starts here.
        networkManager?.getData(endPoint: .posts, type: Post.self)
    }

    /// Loads the embedded set again and emits it: what `POST /posts/refresh` does without `--upstream`.
    @discardableResult
    package func reloadEmbedded() -> [Post] {
        show(EmbeddedData.posts, seq: nil)
        return EmbeddedData.posts
    }
}
