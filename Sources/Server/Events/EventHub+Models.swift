import Domain
import Reactive

extension EventHub {
    /// Subscribes once to each view model's subject, one topic each (docs/api.md, "Live updates"): the
    /// current-value subjects replay to the hub now, which makes them the first events.
    func attach(_ models: LiveStateModels) {
        attach(.todos, collection: models.todos.tasks)
        attach(.posts, collection: models.posts.posts)
        attach(.albums, collection: models.albums.albumSubject)
        attach(.image, optional: models.albums.imageSubject)
        attach(.frameworks, models.frameworks.didSelect.map { FrameworkSelectionEvent(selected: $0) })
        attach(.movies, optional: models.movies.results)
    }
}
