import Domain
import HTTP
import Reactive

/// The view models' lists, each encoded once per emission: the bytes a bare `GET` answers with and the
/// data of the `/events` event are the same array.
struct ListSnapshots: Sendable {
    /// `TaskListViewModel.versions`. Each list comes with the id of the event its journal entry gives it.
    let todos: EncodedSnapshot<[Todo]>
    /// `PostViewModel.versions`.
    let posts: EncodedSnapshot<[Post]>
    /// `AlbumViewModel.albumVersions`.
    let albums: EncodedSnapshot<[AlbumModel]>
    /// `FrameworkListViewModel.list`.
    let frameworks: EncodedSnapshot<[AppleFramework]>

    /// Subscribes to each list of `models`.
    init(_ models: LiveStateModels) {
        todos = EncodedSnapshot(
            journaledList: models.todos.versions.map { Journaled($0.todos, eventID: EventHub.eventID($0.seq)) })
        posts = EncodedSnapshot(
            journaledList: models.posts.versions.map { Journaled($0.value, eventID: EventHub.eventID($0.seq)) })
        albums = EncodedSnapshot(
            journaledList: models.albums.albumVersions.map { Journaled($0.value, eventID: EventHub.eventID($0.seq)) })
        frameworks = EncodedSnapshot(list: models.frameworks.list)
    }
}
