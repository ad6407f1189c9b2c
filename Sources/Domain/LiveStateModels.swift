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

    /// Builds every model, the task list showing `todos` (as storage held them at start).
    ///
    /// - Parameters:
    ///   - commitTodo: where the task list's `addNewTask` hands the inserts it keeps (the server's journal).
    ///   - upstream: a jsonplaceholder-compatible base URL; posts and albums then start empty and load
    ///     `URL/posts` and `URL/photos` at once. Nil: the embedded data set.
    ///   - loader: downloads upstream resources (the server's HTTP client); nil downloads nothing.
    ///   - imageLoader: what the album view model's pipeline downloads a selection made here with (nil: none
    ///     is downloaded). The server passes none: its selections are committed, and the image one instance
    ///     downloaded comes to every instance's pipeline as a committed image entry (`committedImages`).
    ///   - scheduler: where the movie search's debounce waits (the server's event loop).
    ///   - maxTodos: the most todos the list takes (`--max-todos`).
    ///
    /// The inputs are shared through the server's journal (docs/architecture-instances.md): the film search's
    /// debounced keywords go to `debouncedKeyword` (the server journals them, and the model's search runs on
    /// each one committed), and the upstream lists are not fetched at once: the server shows the journal's,
    /// or loads them with the models' own `load()` (the seed's `NetworkManager.getData`) and journals them
    /// when it holds none.
    package init<S: Scheduler>(
        todos: [Todo], commitTodo: @escaping TaskListViewModel.Commit, upstream: URL?, loader: (any DataLoader)?,
        imageLoader: (any DataLoader)? = nil, scheduler: S, maxTodos: Int = TaskListViewModel.defaultMaxCount
    ) {
        let selections = imageLoader
        self.todos = TaskListViewModel(todos: todos, maxCount: maxTodos, commit: commitTodo)
        if let upstream, let loader {
            let networkManager = NetworkManager(baseURL: upstream, loader: loader)
            posts = PostViewModel(networkManager: networkManager, fetchAtStart: false)
            albums = AlbumViewModel(networkManager: networkManager, loader: selections, fetchAtStart: false)
        } else {
            posts = PostViewModel()
            albums = AlbumViewModel(loader: selections)
        }
        frameworks = FrameworkListViewModel()
        movies = MovieSearchViewModel(scheduler: scheduler, searchesHere: false)
    }

    /// Builds every model on the embedded data, with no todos, no downloads and no debounce delay; the task
    /// list's inserts go to `commitTodo`, and a keyword is searched once committed (`movies.committed`).
    package convenience init(commitTodo: @escaping TaskListViewModel.Commit) {
        self.init(
            todos: [], commitTodo: commitTodo, upstream: nil, loader: nil, scheduler: ImmediateScheduler.shared)
    }
}
