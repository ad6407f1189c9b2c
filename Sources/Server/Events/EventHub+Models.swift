import Domain
import Reactive

extension EventHub {
    /// Subscribes once to each view model's subject, one topic each (docs/api.md, "Live updates"): the
    /// current-value subjects replay to the hub now, which makes them the first events.
    ///
    /// The lists come as their snapshots, so each emission is encoded once for `GET` and `/events`; with
    /// `live`, each list also reaches its collection's live queries with its event's id.
    func attach(_ models: LiveStateModels, lists: ListSnapshots, live: LiveCollections? = nil) {
        attach(.todos, collection: lists.todos, live: live.map { $0.todos.publish })
        attach(.posts, collection: lists.posts, live: live.map { $0.posts.publish })
        attach(.albums, collection: lists.albums, live: live.map { $0.albums.publish })
        attach(.image, optional: models.albums.imageSubject)
        attach(.frameworks, models.frameworks.didSelect.map { FrameworkSelectionEvent(selected: $0) })
        attach(.movies, optional: models.movies.results)
    }
}
