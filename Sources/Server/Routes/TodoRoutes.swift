import Domain
import HTTP
import Storage

extension Router {
    /// Seed 004's task list: `GET/POST /todos`, `GET/PATCH/DELETE /todos/:id`.
    ///
    /// A bare `GET /todos` answers bytes encoded once per change of `tasks`; every mutation goes through
    /// `TaskListViewModel` and answers only after the store committed it.
    mutating func addTodoRoutes(_ app: App) {
        let todos = app.models.todos
        let snapshot = app.lists.todos

        get("/todos") { request in
            try ListQuery.reply(request, cached: snapshot) { todos.currentTasks }
        }
        get("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            guard let todo = todos.todo(id: id) else { throw TodoError.notFound(id: id) }
            return try .json(todo)
        }
        if let journal = app.journal {
            addSharedTodoWrites(journal)
            return
        }
        post("/todos") { request in
            let input = try request.decode(NewTodoBody.self)
            let todo = try todos.add(title: input.title)
            return try .json(todo, status: 201, headers: ["Location": "/todos/\(todo.id)"])
        }
        patch("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            let input = try request.decode(TodoPatchBody.self)
            return try .json(todos.update(id: id, title: input.title, completed: input.completed))
        }
        delete("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            try todos.delete(id: id)
            return .response(.noContent)
        }
    }
}

extension Router {
    /// The todo writes of several instances (reads are as on one instance: this instance's list, which
    /// follows the journal): committed in PostgreSQL with their journal entry and answered once this
    /// instance applied it, so a read here right after a 2xx sees the write.
    fileprivate mutating func addSharedTodoWrites(_ journal: PostgresJournal) {
        post("/todos") { request in
            let input = try request.decode(NewTodoBody.self)
            let title = try TodoTitle.validated(input.title)
            return .later { respond in
                journal.write(.insert(title: title, completed: false)) { result in
                    respond(Self.answer(result, status: 201) { ["Location": "/todos/\($0.id)"] })
                }
            }
        }
        patch("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            let input = try request.decode(TodoPatchBody.self)
            let title = try input.title.map { title throws(TodoError) in try TodoTitle.validated(title) }
            return .later { respond in
                journal.write(.update(id: id, title: title, completed: input.completed)) { result in
                    respond(Self.answer(result, status: 200) { _ in [:] })
                }
            }
        }
        delete("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            return .later { respond in
                journal.write(.delete(id: id)) { result in
                    respond(Self.answer(result, status: 204) { _ in [:] })
                }
            }
        }
    }

    /// The answer to a shared write: the todo as JSON (nothing for a delete), or the refusal.
    private static func answer(
        _ result: Result<Todo?, TodoError>, status: Int, headers: (Todo) -> HTTPHeaders
    ) -> Response {
        switch result {
        case .success(let todo?):
            return (try? Response.json(todo, status: status, headers: headers(todo))) ?? Response(error: .internalError)
        case .success(nil): return .noContent
        case .failure(let error): return Response(error: error)
        }
    }
}

/// The body of `POST /todos`.
private struct NewTodoBody: Decodable {
    var title: String
}

/// The body of `PATCH /todos/:id`: each field optional.
private struct TodoPatchBody: Decodable {
    var title: String?
    var completed: Bool?
}
