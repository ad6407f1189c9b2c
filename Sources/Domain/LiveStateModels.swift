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

    /// Builds every model on the embedded data, with todos from `store`.
    package init(store: any TodoStore) throws(TodoError) {
        todos = try TaskListViewModel(store: store)
        posts = PostViewModel()
        albums = AlbumViewModel()
        frameworks = FrameworkListViewModel()
        movies = MovieSearchViewModel()
    }
}
