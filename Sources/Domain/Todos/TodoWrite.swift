/// A write of the task list as its inputs hand it on to be committed (titles already validated and trimmed);
/// the change it makes comes back, once committed, through `TaskListViewModel.committed`.
package enum TodoWrite: Sendable, Equatable {
    /// `addNewTask` (`POST /todos`).
    case insert(title: String, completed: Bool)
    /// `PUT` / `PATCH /todos/:id` (nil keeps the field).
    case update(id: Int, title: String?, completed: Bool?)
    /// `DELETE /todos/:id`.
    case delete(id: Int)
}
