package import Foundation
package import Reactive

/// The view models of the five seed apps, built once per process and shared by every route and event
/// stream. Each is thread-safe.
package final class LiveStateModels: Sendable {
    /// Seed 004: the persisted task list.
    package let todos: TaskListViewModel
    /// Seed 002: the posts.
    package let posts: PostViewModel
    /// Seed 000: the photos and the selected image.
    package let albums: AlbumViewModel
    /// Seed 001: the Apple frameworks and the selections.
    package let frameworks: FrameworkListViewModel
    /// Seed 003: the film search.
    package let movies: MovieSearchViewModel

    /// Builds every model, with todos from `store`.
    ///
    /// - Parameters:
    ///   - upstream: a jsonplaceholder-compatible base URL; posts and albums then start empty and load
    ///     `URL/posts` and `URL/photos` at once. Nil: the embedded data set.
    ///   - loader: downloads upstream resources and selected images (the server's HTTP client); nil
    ///     downloads nothing (selections are recorded only).
    ///   - scheduler: where the movie search's debounce waits (the server's event loop).
    ///   - maxTodos: the most todos the list takes (`--max-todos`).
    ///   - shared: several instances (docs/architecture-instances.md): selections are recorded but not
    ///     downloaded and debounced keywords are not searched here; the shared journal applies both. The
    ///     upstream lists are not fetched at once either: the server takes the journal's (or fetches and
    ///     journals them when the journal holds none).
    package init<S: Scheduler>(
        store: any TodoStore, upstream: URL?, loader: (any DataLoader)?, scheduler: S,
        maxTodos: Int = TaskListViewModel.defaultMaxCount, shared: Bool = false
    ) throws(TodoError) {
        let selections = shared ? nil : loader
        todos = try TaskListViewModel(store: store, maxCount: maxTodos)
        if let upstream, let loader {
            let networkManager = NetworkManager(baseURL: upstream, loader: loader)
            posts = PostViewModel(networkManager: networkManager, fetchAtStart: !shared)
            albums = AlbumViewModel(networkManager: networkManager, loader: selections, fetchAtStart: !shared)
        } else {
            posts = PostViewModel()
            albums = AlbumViewModel(loader: selections)
        }
        frameworks = FrameworkListViewModel()
        movies = MovieSearchViewModel(scheduler: scheduler, searchesHere: !shared)
    }

    /// Builds every model on the embedded data, with todos from `store`, no downloads and no debounce delay.
    package convenience init(store: any TodoStore) throws(TodoError) {
        try self.init(store: store, upstream: nil, loader: nil, scheduler: ImmediateScheduler.shared)
    }
}
