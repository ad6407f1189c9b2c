import Domain
import HTTP

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

/// The body of `POST /todos`.
private struct NewTodoBody: Decodable {
    var title: String
}

/// The body of `PATCH /todos/:id`: each field optional.
private struct TodoPatchBody: Decodable {
    var title: String?
    var completed: Bool?
}
