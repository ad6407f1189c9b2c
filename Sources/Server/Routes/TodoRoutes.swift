import Domain
import HTTP
import Storage

extension Router {
    /// Seed 004's task list: `GET/POST /todos`, `GET/PUT/PATCH/DELETE /todos/:id`.
    ///
    /// A bare `GET /todos` answers bytes encoded once per change of `tasks`; every mutation goes through
    /// `TaskListViewModel` and answers only after the store committed it.
    mutating func addTodoRoutes(_ app: App) {
        let todos = app.models.todos
        let snapshot = app.lists.todos
        let live = app.live.todos

        get("/todos") { request in
            try ListQuery.reply(request, cached: snapshot, live: live) { todos.currentTasks }
        }
        get("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            guard let todo = todos.todo(id: id) else { throw TodoError.notFound(id: id) }
            return try .json(todo)
        }
        addTodoWrites(app.journal, todos: todos)
    }

    /// The fields of a todo body (`id` is the server's).
    fileprivate static let todoFields = ["title", "completed"]
}

extension Router {
    /// The todo writes (reads are this server's list, which follows the journal): committed with their
    /// journal entry (SQLite or PostgreSQL) and answered once this server applied it, so a read here right
    /// after a 2xx sees the write. An `Idempotency-Key` is kept with the write's entry on both engines, so a
    /// repeat is answered from the first write and changes nothing.
    fileprivate mutating func addTodoWrites(_ journal: any Journal, todos: TaskListViewModel) {
        post("/todos") { request in
            let key = try request.idempotencyKey()
            let body = try request.jsonBody(fields: Self.todoFields)
            let title = try TodoTitle.validated(body.required("title", as: String.self))
            let completed = try body.optional("completed", as: Bool.self) ?? false
            // NB: a quick refusal against this instance's list. SQLite checks again under its commit lock
            // (exact); PostgreSQL instances adding at once may pass the limit by the writes in flight between
            // them, a bounded overshoot.
            guard todos.currentTasks.count < todos.maxCount else { throw TodoError.tooManyTodos(limit: todos.maxCount) }
            return .later { respond in
                journal.write(.insert(title: title, completed: completed), key: key) { result in
                    respond(Self.answer(result, status: 201) { ["Location": "/todos/\($0.id)"] })
                }
            }
        }
        put("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            let key = try request.idempotencyKey()
            let body = try request.jsonBody(fields: Self.todoFields)
            let title = try TodoTitle.validated(body.required("title", as: String.self))
            let completed: Bool = try body.required("completed")
            return .later { respond in
                journal.write(.update(id: id, title: title, completed: completed), key: key) { result in
                    respond(Self.answer(result, status: 200) { _ in [:] })
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
            let title = try body.optional("title", as: String.self).map { title throws(TodoError) in
                try TodoTitle.validated(title)
            }
            let completed: Bool? = try body.optional("completed")
            return .later { respond in
                journal.write(.update(id: id, title: title, completed: completed), key: key) { result in
                    respond(Self.answer(result, status: 200) { _ in [:] })
                }
            }
        }
        delete("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            let key = try request.idempotencyKey()
            return .later { respond in
                journal.write(.delete(id: id), key: key) { result in
                    respond(Self.answer(result, status: 204) { _ in [:] })
                }
            }
        }
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
