import Domain
import Reactive
import Support

extension EventHub {
    /// Subscribes once to each view model's subject, one topic each (docs/api.md, "Live updates"): the
    /// current-value subjects replay to the hub now, which makes them the first events. Each output carries
    /// the journal id of the entry that made it, which becomes its event's id.
    ///
    /// The lists come as their snapshots, so each emission is encoded once for `GET` and `/events`; with
    /// `live`, each list's carrier (the change that made it, and the list) also reaches its collection's live
    /// queries with its event's id.
    func attach(_ models: LiveStateModels, lists: ListSnapshots, live: LiveCollections? = nil) {
        attach(.todos, collection: lists.todos, live: live.map { $0.todos.publish(id:version:) })
        attach(.posts, collection: lists.posts, live: live.map { $0.posts.publish(id:version:) })
        attach(.albums, collection: lists.albums, live: live.map { $0.albums.publish(id:version:) })
        attach(.image, versionedOptional: models.albums.imageVersions)
        attach(
            .frameworks,
            versioned: models.frameworks.selections.map {
                Versioned(seq: $0.seq, FrameworkSelectionEvent(selected: $0.value))
            })
        attach(.movies, versionedOptional: models.movies.resultVersions)
    }
}
