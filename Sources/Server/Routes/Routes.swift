/// Every route of the service, declared in one place (see ../shared/spec/API.md).
///
/// Each resource contributes its group from its own file as an extension on `Router`
/// (`mutating func addTodoRoutes(_ app: App)` in Routes/TodoRoutes.swift, and so on).
/// To add a group: write `Routes/<Resource>Routes.swift` with that extension, then add its call below
/// (this file is the HTTP platform engineer's; adding a call line here is the agreed edit).
/// Handlers are `@Sendable (Request) throws -> Reply` and run concurrently on every loop's thread.
func buildRouter(_ app: App) -> Router {
    var router = Router()
    router.addSystemRoutes(app)
    router.addOpenAPIRoutes(app)
    // Resource groups (Domain): addTodoRoutes, addPostRoutes, addAlbumRoutes, addFrameworkRoutes, addMovieRoutes.
    router.addTodoRoutes(app)
    router.addPostRoutes(app)
    router.addAlbumRoutes(app)
    router.addFrameworkRoutes(app)
    router.addMovieRoutes(app)
    // Pipelines: the generated placeholder images of the embedded photos.
    router.addPlaceholderRoutes(app)
    // Live updates (Live).
    router.addEventRoutes(app)
    return router
}
