import Domain
import HTTP
import Reactive

extension Router {
    /// Seed 001's framework list: `GET /frameworks`, `POST /frameworks/selection`.
    mutating func addFrameworkRoutes(_ site: SeedSite) {
        let frameworks = site.models.frameworks
        let snapshot = site.lists.frameworks

        get("/frameworks") { request in
            try ListQuery.reply(request, cached: snapshot) { frameworks.list.value }
        }
        addSharedFrameworkSelection(site)
    }
}
