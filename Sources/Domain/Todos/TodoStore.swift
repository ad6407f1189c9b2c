/// Where todos live between restarts. `TaskListViewModel` talks only to this protocol, so a second engine
/// (PostgreSQL for several instances) can follow without touching the view model.
///
/// Every mutating call returns only once the change is durable: a caller that answers 2xx after it may
/// rely on the change surviving a crash. Implementations are called from several threads at once.
package protocol TodoStore: Sendable {
    /// Every todo, ordered by id.
    func all() throws(TodoStoreError) -> [Todo]
    /// Stores a new todo with a fresh id (never one used before, even by a deleted todo).
    func insert(title: String, completed: Bool) throws(TodoStoreError) -> Todo
    /// Replaces the stored todo with `todo.id`; `false` when there is none.
    func update(_ todo: Todo) throws(TodoStoreError) -> Bool
    /// Deletes the todo with `id`; `false` when there is none.
    func delete(id: Int) throws(TodoStoreError) -> Bool
}
