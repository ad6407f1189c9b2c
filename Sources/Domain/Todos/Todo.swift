/// One task of seed 004's list, as stored and as served: `{"id": Int, "title": String, "completed": Bool}`.
package struct Todo: Codable, Equatable, Identifiable, Sendable {
    /// Store-assigned id, never reused.
    package var id: Int
    /// The trimmed title (see `TodoTitle`).
    package var title: String
    /// Whether the task is done.
    package var completed: Bool

    /// Creates a todo value.
    package init(id: Int, title: String, completed: Bool = false) {
        self.id = id
        self.title = title
        self.completed = completed
    }
}
