import Domain
import HTTP

/// The view models' lists, each encoded once per emission: the bytes a bare `GET` answers with and the
/// data of the `/events` event are the same array.
struct ListSnapshots: Sendable {
    /// `TaskListViewModel.tasks`.
    let todos: EncodedSnapshot<[Todo]>
    /// `PostViewModel.posts`.
    let posts: EncodedSnapshot<[Post]>
    /// `AlbumViewModel.albumSubject`.
    let albums: EncodedSnapshot<[AlbumModel]>
    /// `FrameworkListViewModel.list`.
    let frameworks: EncodedSnapshot<[AppleFramework]>

    /// Subscribes to each list of `models`.
    init(_ models: LiveStateModels) {
        todos = EncodedSnapshot(list: models.todos.tasks)
        posts = EncodedSnapshot(list: models.posts.posts)
        albums = EncodedSnapshot(list: models.albums.albumSubject)
        frameworks = EncodedSnapshot(list: models.frameworks.list)
    }
}
