import Domain
import HTTP
import Reactive

/// The view models' lists, each encoded once per emission: the bytes a bare `GET` answers with and the
/// data of the `/events` event are the same array.
struct ListSnapshots: Sendable {
    /// `TaskListViewModel.versions`: each list with the id of the event its journal entry gives it.
    let todos: EncodedSnapshot<[Todo]>
    /// `PostViewModel.posts`.
    let posts: EncodedSnapshot<[Post]>
    /// `AlbumViewModel.albumSubject`.
    let albums: EncodedSnapshot<[AlbumModel]>
    /// `FrameworkListViewModel.list`.
    let frameworks: EncodedSnapshot<[AppleFramework]>

    /// Subscribes to each list of `models`.
    init(_ models: LiveStateModels) {
        todos = EncodedSnapshot(
            journaledList: models.todos.versions.map { version in
                Journaled(version.todos, eventID: version.seq.map { UInt64($0) * EventIDSource.journalBlock })
            })
        posts = EncodedSnapshot(list: models.posts.posts)
        albums = EncodedSnapshot(list: models.albums.albumSubject)
        frameworks = EncodedSnapshot(list: models.frameworks.list)
    }
}
