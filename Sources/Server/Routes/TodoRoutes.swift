import Domain
import HTTP
import Storage

extension Router {
    /// Seed 004's task list: `GET/POST /todos`, `GET/PUT/PATCH/DELETE /todos/:id`.
    ///
    /// A bare `GET /todos` answers bytes encoded once per change of `tasks`; every mutation goes through
    /// `TaskListViewModel`'s inputs and answers only after the journal committed it.
    mutating func addTodoRoutes(_ site: SeedSite) {
        let todos = site.models.todos
        let snapshot = site.lists.todos
        let live = site.live.todos

        get("/todos") { request in
            try ListQuery.reply(request, cached: snapshot, live: live) { todos.currentTasks }
        }
        get("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            guard let todo = todos.todo(id: id) else { throw TodoError.notFound(id: id) }
            return try .json(todo)
        }
        addTodoWrites(site, todos: todos)
    }

    /// The fields of a todo body (`id` is the server's).
    fileprivate static let todoFields = ["title", "completed"]
}

extension Router {
    /// The todo writes go through the task list's inputs (`addNewTask` for a `POST`), which judge them and
    /// hand them on to storage (SQLite: a plan of the seeds' store; PostgreSQL: the journal); each is answered
    /// once this server applied its entry, so a read here right after a 2xx sees the write. An
    /// `Idempotency-Key` is kept with the write's entry on both engines, so a repeat is answered from the
    /// first write and changes nothing.
    fileprivate mutating func addTodoWrites(_ site: SeedSite, todos: TaskListViewModel) {
        post("/todos") { request in
            let key = try request.idempotencyKey()
            let body = try request.jsonBody(fields: Self.todoFields)
            let title: String = try body.required("title")
            let completed = try body.optional("completed", as: Bool.self) ?? false
            // NB: the list's own check of its limit is against this instance's list. SQLite checks again under
            // its commit lock (exact); PostgreSQL instances adding at once may pass the limit by the writes in
            // flight between them, a bounded overshoot.
            return .later { respond in
                Self.refusing(respond) { () throws(TodoError) in
                    try todos.add(
                        title: title, completed: completed,
                        commit: Self.committing(site.journal, key: key, status: 201, respond: respond) {
                            ["Location": "/todos/\($0.id)"]
                        })
                }
            }
        }
        put("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            let key = try request.idempotencyKey()
            let body = try request.jsonBody(fields: Self.todoFields)
            let title: String = try body.required("title")
            let completed: Bool = try body.required("completed")
            return .later { respond in
                Self.refusing(respond) { () throws(TodoError) in
                    try todos.update(
                        id: id, title: title, completed: completed,
                        commit: Self.committing(site.journal, key: key, status: 200, respond: respond))
                }
            }
        }
        patch("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            let key = try request.idempotencyKey()
            let body = try request.jsonBody(fields: Self.todoFields)
            if body.isEmpty {
                throw HTTPError.badRequest(
                    "the body names no field to change; the fields are title, completed", code: "missing_field")
            }
            let title: String? = try body.optional("title")
            let completed: Bool? = try body.optional("completed")
            return .later { respond in
                Self.refusing(respond) { () throws(TodoError) in
                    try todos.update(
                        id: id, title: title, completed: completed,
                        commit: Self.committing(site.journal, key: key, status: 200, respond: respond))
                }
            }
        }
        delete("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            let key = try request.idempotencyKey()
            return .later { respond in
                todos.delete(id: id, commit: Self.committing(site.journal, key: key, status: 204, respond: respond))
            }
        }
    }

    /// Commits a write under `key` as a plan of the seeds' store and answers `respond` with its outcome.
    private static func committing(
        _ store: SeedStore, key: String?, status: Int, respond: @escaping Reply.Respond,
        headers: @escaping @Sendable (Todo) -> HTTPHeaders = { _ in [:] }
    ) -> TaskListViewModel.Commit {
        { write in
            store.submitTodo(
                write, key: key, answer: { answer(.success($0), status: status, headers: headers) }, respond: respond)
        }
    }

    /// Runs `body`, answering `respond` with its refusal if it throws (it answers through its commit otherwise).
    private static func refusing(_ respond: Reply.Respond, _ body: () throws(TodoError) -> Void) {
        do { try body() } catch { respond(Response(error: error)) }
    }

    /// The answer to a shared write: the todo as JSON (nothing for a delete), or the refusal.
    private static func answer(
        _ result: Result<TodoWriteOutcome, JournalError>, status: Int, headers: (Todo) -> HTTPHeaders
    ) -> Response {
        switch result {
        case .success(.committed(let todo?)):
            return (try? Response.json(todo, status: status, headers: headers(todo))) ?? Response(error: .internalError)
        case .success(.committed(nil)): return .noContent
        case .success(.notFound(let id)): return Response(error: TodoError.notFound(id: id))
        case .success(.full(let limit)): return Response(error: TodoError.tooManyTodos(limit: limit))
        case .failure(let error): return Response(error: error)
        }
    }
}
