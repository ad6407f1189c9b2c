import Domain
import HTTP
import Reactive
import Storage

extension Router {
    /// Seed 001's framework list: `GET /frameworks`, `POST /frameworks/selection`.
    mutating func addFrameworkRoutes(_ site: SeedSite) {
        let (frameworks, journal) = (site.models.frameworks, site.journal)
        let snapshot = site.lists.frameworks

        get("/frameworks") { request in
            try ListQuery.reply(request, cached: snapshot) { frameworks.list.value }
        }
        // The selection is committed and answered once applied here, so every instance's `/events` clients get
        // it with one id (docs/architecture-instances.md).
        post("/frameworks/selection") { request in
            let key = try request.idempotencyKey()
            let name: String = try request.jsonBody(fields: ["name"]).required("name")
            guard frameworks.list.value.contains(where: { $0.name == name }) else {
                throw FrameworkError.unknownName(name)
            }
            return .later { respond in
                SeedInput.append(.frameworks, .init(name: name), key: key, to: journal) { result in
                    respond(
                        Response.committed(result) { appended in
                            // NB: the first request's name when the key was committed before.
                            let selected = frameworks.list.value.first { $0.name == appended.payload.name }
                            return try .json(["selected": selected], status: 202)
                        })
                }
            }
        }
    }
}
