import Domain

/// The seed collections' live queries, one `LiveCollection` each, registered with one engine.
struct LiveCollections: Sendable {
    /// The engine: limits, the count of open live queries.
    let engine: LiveQueryEngine
    /// `GET /todos` live.
    let todos: LiveCollection<ListLiveQuery<Todo>>
    /// `GET /posts` live.
    let posts: LiveCollection<ListLiveQuery<Post>>
    /// `GET /albums` and `GET /photos` live (one collection under both names).
    let albums: LiveCollection<ListLiveQuery<AlbumModel>>

    /// Registers the three seed collections with `engine`.
    init(engine: LiveQueryEngine) {
        self.engine = engine
        todos = engine.register("todos", query: ListLiveQuery<Todo>.self) { String($0.id) }
        posts = engine.register("posts", query: ListLiveQuery<Post>.self) { String($0.id) }
        albums = engine.register("albums", query: ListLiveQuery<AlbumModel>.self) { String($0.id) }
    }
}
