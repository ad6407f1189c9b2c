import Domain
import HTTP
import Reactive

extension Router {
    /// Seed 001's framework list: `GET /frameworks`, `POST /frameworks/selection`.
    mutating func addFrameworkRoutes(_ app: App) {
        let frameworks = app.models.frameworks
        let snapshot = app.lists.frameworks

        get("/frameworks") { request in
            try ListQuery.reply(request, cached: snapshot) { frameworks.list.value }
        }
        if let shared = app.shared { return addSharedFrameworkSelection(shared) }
        post("/frameworks/selection") { request in
            _ = try request.idempotencyKey()  // NB: checked, not stored: one server answers before it forgets
            let name: String = try request.jsonBody(fields: ["name"]).required("name")
            let selected = try frameworks.select(name: name)
            return try .json(["selected": selected], status: 202)
        }
    }
}
