import HTTP

/// Every route of the service, declared in one place, so the table (and the 404/405 it implies) is read
/// top to bottom here.
///
/// Each resource contributes its group from its own file as an extension on `Router`
/// (`mutating func addTodoRoutes(_ app: App)` in Routes/TodoRoutes.swift, and so on).
/// To add a group: write `Routes/<Resource>Routes.swift` with that extension, then add its call below.
/// Handlers are `@Sendable (Request) throws -> Reply` and run concurrently on every loop's thread.
func buildRouter(_ app: App) -> Router {
    var router = Router()
    router.addSystemRoutes(app)
    router.addOpenAPIRoutes(app)
    router.addLiveClientRoutes()
    if let dataFile = app.dataFile {
        // A user's data file: its resources instead of the seeds', their names matched in any case.
        router.ignoresCase = true
        router.addDocumentRoutes(
            dataFile, live: app.documentLive, workers: app.workers, readOnly: app.configuration.readOnly,
            page: app.staticFiles == nil)
        router.addResetRoutes(dataFile.resets, readOnly: app.configuration.readOnly)
        router.addEventRoutes(app)
        if let list = app.resourceList, app.staticFiles == nil {
            // The built-in page's stream of the set of resources (a save may add or remove some).
            router.get("/_livestate/resources") { _ in list.reply() }
        }
        return router
    }
    // The resources of the seed view models.
    router.addTodoRoutes(app)
    router.addPostRoutes(app)
    router.addAlbumRoutes(app)
    router.addFrameworkRoutes(app)
    router.addMovieRoutes(app)
    // The generated placeholder images of the embedded photos.
    router.addPlaceholderRoutes(app)
    // Live updates.
    router.addEventRoutes(app)
    return router
}
