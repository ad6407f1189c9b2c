package import Reactive

/// Seed 002's `PostViewModel`: the posts in a `CurrentValueSubject` that every listener shares, loaded
/// through `NetworkManager.getData(endPoint: .posts)` when there is an upstream.
///
/// ```swift
/// let model = PostViewModel()
/// model.posts.sink { print($0.count) }.store(in: &bag)   // 100
/// model.refresh().sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count) })
/// ```
package final class PostViewModel: Sendable {
    /// The current posts; a new subscriber receives them first.
    package let posts: CurrentValueSubject<[Post], Never>
    /// Loads `URL/posts`; nil without `--upstream` (the embedded set is the source).
    private let networkManager: NetworkManager?

    /// Starts with `posts` (the embedded set by default) and no upstream.
    package init(posts: [Post] = EmbeddedData.posts) {
        self.posts = CurrentValueSubject(posts)
        networkManager = nil
    }

    /// Starts empty, as the seed's `CurrentValueSubject([])`, and fetches from `networkManager` at once
    /// (unless `fetchAtStart` is false: several instances share the first list one of them loaded).
    package init(networkManager: NetworkManager, fetchAtStart: Bool = true) {
        posts = CurrentValueSubject([])
        self.networkManager = networkManager
        if fetchAtStart { fetchData() }
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
        return networkManager.getData(endPoint: .posts, type: Post.self, sendingTo: posts)
    }

    /// Loads the embedded set again and emits it: what `POST /posts/refresh` does without `--upstream`.
    @discardableResult
    package func reloadEmbedded() -> [Post] {
        posts.send(EmbeddedData.posts)
        return EmbeddedData.posts
    }
}
