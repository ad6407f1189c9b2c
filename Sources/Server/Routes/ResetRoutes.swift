import HTTP
import StrictJSON

extension Router {
    /// A data file's reset and checkpoints, for a front end's tests: `POST /db/reset`, `GET/POST
    /// /db/checkpoints`, `GET/DELETE /db/checkpoints/:id`, `POST /db/checkpoints/:id/restore`. They are writes
    /// (the token, Origin and Host rules apply to them as to any write); with `--read-only` only the reads
    /// are routes, and the others answer 405.
    mutating func addResetRoutes(_ resets: DocumentResets, readOnly: Bool) {
        get("/db/checkpoints") { _ in .later { respond in resets.listCheckpoints(respond: respond) } }
        get("/db/checkpoints/:id") { request in
            let id = Int64(try request.require("id", as: String.self))
            return .later { respond in resets.showCheckpoint(id, respond: respond) }
        }
        guard !readOnly else {
            // NB: no other method reaches these paths: the 405 allows none.
            post("/db/reset") { request in .error(.methodNotAllowed(request.method, allowed: [])) }
            post("/db/checkpoints/:id/restore") { request in .error(.methodNotAllowed(request.method, allowed: [])) }
            return
        }
        post("/db/reset") { request in
            if !request.body.isEmpty { _ = try request.jsonObjectBody(maxDepth: DataFileContent.maxDepth) }
            let body = request.body.isEmpty ? nil : request.body
            return .later { respond in resets.reset(body, respond: respond) }
        }
        post("/db/checkpoints") { request in
            let name = try Self.checkpointName(request)
            return .later { respond in resets.saveCheckpoint(name: name, respond: respond) }
        }
        post("/db/checkpoints/:id/restore") { request in
            let id = Int64(try request.require("id", as: String.self))
            return .later { respond in resets.restoreCheckpoint(id, respond: respond) }
        }
        delete("/db/checkpoints/:id") { request in
            let id = Int64(try request.require("id", as: String.self))
            return .later { respond in resets.deleteCheckpoint(id, respond: respond) }
        }
    }

    /// The optional `{"name": "…"}` of a new checkpoint (`""` without one).
    private static func checkpointName(_ request: Request) throws(HTTPError) -> String {
        guard !request.body.isEmpty else { return "" }
        let body = try request.jsonObjectBody()
        for (key, _) in body.members where key != "name" {
            throw HTTPError.badRequest("a checkpoint has no field '\(key)' (only \"name\")", code: "unknown_field")
        }
        guard let value = body["name"] else { return "" }
        guard case .string(let name) = value else {
            throw HTTPError.badRequest("'name' must be a string, not \(value.kindDescription)", code: "invalid_field")
        }
        // NB: counted as JSON Schema's `maxLength` counts (code points), as the OpenAPI document states it.
        guard name.unicodeScalars.count <= DocumentResets.maxNameLength else {
            throw HTTPError.badRequest(
                "'name' must be at most \(DocumentResets.maxNameLength) characters", code: "invalid_field")
        }
        return name
    }
}
