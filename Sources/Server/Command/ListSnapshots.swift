import Domain
import HTTP
import Reactive
import Support

/// The view models' lists, each encoded once per emission: the bytes a bare `GET` answers with and the
/// data of the `/events` event are the same array.
struct ListSnapshots: Sendable {
    /// `TaskListViewModel.versions`: each list comes with the journal id of its entry and the change that
    /// made it, which its encoder, its event and its live queries follow.
    let todos: EncodedSnapshot<ChunkedList<Todo>, ListChange<Todo>>
    /// `PostViewModel.versions` (each a whole list).
    let posts: EncodedSnapshot<[Post], ListChange<Post>>
    /// `AlbumViewModel.albumVersions` (each a whole list).
    let albums: EncodedSnapshot<[AlbumModel], ListChange<AlbumModel>>
    /// `FrameworkListViewModel.list`.
    let frameworks: EncodedSnapshot<[AppleFramework], Never>

    /// Subscribes to each list of `models`.
    init(_ models: LiveStateModels) {
        todos = EncodedSnapshot(versionedList: models.todos.versions)
        posts = EncodedSnapshot(versionedList: models.posts.versions.map(Self.whole))
        albums = EncodedSnapshot(versionedList: models.albums.albumVersions.map(Self.whole))
        frameworks = EncodedSnapshot(list: models.frameworks.list)
    }

    /// A list whose every change is the whole list, as a list's carrier: its change is found by comparing.
    private static func whole<Item>(_ version: Versioned<[Item], Never>) -> Versioned<[Item], ListChange<Item>> {
        Versioned(seq: version.seq, change: nil, version.value)
    }
}
