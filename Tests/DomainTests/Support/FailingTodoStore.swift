import Domain

/// A store whose disk is gone: every write fails (the outside edge, which a real file cannot fake on demand).
struct FailingTodoStore: TodoStore {
    func all() -> [Todo] { [Todo(id: 1, title: "Buy Milk")] }
    func insert(title: String, completed: Bool) throws(TodoStoreError) -> Todo {
        throw TodoStoreError("disk I/O error")
    }
    func update(_ todo: Todo) throws(TodoStoreError) -> Bool { throw TodoStoreError("disk I/O error") }
    func delete(id: Int) throws(TodoStoreError) -> Bool { throw TodoStoreError("disk I/O error") }
}
