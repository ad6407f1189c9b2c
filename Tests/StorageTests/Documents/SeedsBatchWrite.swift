import Domain

/// One write as the seeds' former engine sent it to its batch function (`livestate_write_batch_v6`, which the
/// fixture `pg-seeds-v6.sql` holds): the tests write with it what the servers of that version wrote.
struct BatchWrite: Encodable {
    var op: String
    var topic: String
    var id: Int?
    var title: String?
    var completed: Bool?
    /// An input's entry, as JSON text.
    var change: String?
    /// Take the entry's download claim in its block.
    var claim: Bool?
    var key: String

    init(_ write: TodoWrite, key: String) {
        self.key = key
        topic = "todos"
        switch write {
        case .insert(let title, let completed): (op, self.title, self.completed) = ("insert", title, completed)
        case .update(let id, let title, let completed):
            (op, self.id, self.title, self.completed) = ("update", id, title, completed)
        case .delete(let id): (op, self.id) = ("delete", id)
        }
    }

    init(input topic: String, change: String, key: String, claim: Bool) {
        (op, self.topic, self.change, self.key) = ("input", topic, change, key)
        self.claim = claim ? true : nil
    }
}
