import Domain
import HTTP
import Reactive

extension Router {
    /// Seed 001's framework list: `GET /frameworks`, `POST /frameworks/selection`.
    mutating func addFrameworkRoutes(_ app: App) {
        let frameworks = app.models.frameworks
        let snapshot = EncodedSnapshot(list: frameworks.list)

        get("/frameworks") { request in
            try ListQuery.reply(request, cached: snapshot) { frameworks.list.value }
        }
        post("/frameworks/selection") { request in
            let input = try request.decode(FrameworkSelectionBody.self)
            let selected: AppleFramework
            do throws(FrameworkError) { selected = try frameworks.select(name: input.name) } catch {
                throw HTTPError(error)
            }
            return try .json(["selected": selected], status: 202)
        }
    }
}

/// The body of `POST /frameworks/selection`.
private struct FrameworkSelectionBody: Decodable {
    var name: String
}
