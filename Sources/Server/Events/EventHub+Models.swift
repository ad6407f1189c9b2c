import Domain
import Reactive

extension EventHub {
    /// Subscribes once to each view model's subject, one topic each (docs/api.md, "Live updates"): the
    /// current-value subjects replay to the hub now, which makes them the first events.
    ///
    /// The lists come as their snapshots, so each emission is encoded once for `GET` and `/events`.
    func attach(_ models: LiveStateModels, lists: ListSnapshots) {
        attach(.todos, collection: lists.todos)
        attach(.posts, collection: lists.posts)
        attach(.albums, collection: lists.albums)
        attach(.image, optional: models.albums.imageSubject)
        attach(.frameworks, models.frameworks.didSelect.map { FrameworkSelectionEvent(selected: $0) })
        attach(.movies, optional: models.movies.results)
    }
}
