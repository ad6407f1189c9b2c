import HTTP

/// Every route of the service, declared in one place, so the table (and the 404/405 it implies) is read
/// top to bottom here and in the site's `addRoutes` (`SeedSite`: the seed apps' groups; `DataFileSite`: the
/// data file's resources).
///
/// Each resource contributes its group from its own file as an extension on `Router`
/// (`mutating func addTodoRoutes(_ site: SeedSite)` in Routes/TodoRoutes.swift, and so on).
/// To add a group: write `Routes/<Resource>Routes.swift` with that extension, then add its call below or in
/// its site's `addRoutes`. Handlers are `@Sendable (Request) throws -> Reply` and run concurrently on every
/// loop's thread.
func buildRouter(_ app: App) -> Router {
    var router = Router()
    router.addSystemRoutes(app)
    router.addOpenAPIRoutes(app)
    router.addLiveClientRoutes()
    app.site.addRoutes(to: &router, app: app)
    // Live updates.
    router.addEventRoutes(app)
    return router
}
