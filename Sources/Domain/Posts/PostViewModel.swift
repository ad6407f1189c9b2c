package import Reactive

/// Seed 002's `PostViewModel`: the posts in a `CurrentValueSubject` that every listener shares.
///
/// ```swift
/// let model = PostViewModel()
/// model.posts.sink { print($0.count) }.store(in: &bag)   // 100
/// ```
package final class PostViewModel: Sendable {
    /// The current posts; a new subscriber receives them first.
    package let posts: CurrentValueSubject<[Post], Never>

    /// Starts with `posts` (the embedded set by default; empty until the first load with `--upstream`).
    package init(posts: [Post] = EmbeddedData.posts) {
        self.posts = CurrentValueSubject(posts)
    }

    /// The post with `id`.
    package func post(id: Int) -> Post? {
        posts.value.first { $0.id == id }
    }

    /// Loads the embedded set again and emits it: what `POST /posts/refresh` does without `--upstream`.
    @discardableResult
    package func reloadEmbedded() -> [Post] {
        posts.send(EmbeddedData.posts)
        return EmbeddedData.posts
    }
}
