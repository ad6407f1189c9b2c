import Domain
import Storage
import StrictJSON

/// The seeds' items as the store holds them: a todo as its compact JSON, and an input's JSON as the entry the
/// store commits.
extension SeedStore {
    /// `json` as an entry to commit: its object, and its compact JSON (nil: not an object).
    static func entry(_ json: String) -> SeedInput.Entry? {
        object(json).map { SeedInput.Entry(object: $0, body: $0.compactBytes) }
    }

    /// A todo's id as the store's.
    static func id(_ id: Int) -> DocumentID {
        // Invariant: an integer is an id.
        guard let id = DocumentID(.integer(Int64(id))) else { preconditionFailure("an integer is an id") }
        return id
    }

    /// The object `json` holds (nil: not an object).
    static func object(_ json: String) -> JSONObject? {
        guard case .object(let object)? = try? JSONValue(parsing: Array(json.utf8), maxDepth: 256) else { return nil }
        return object
    }

    /// A todo as the store's item (its compact JSON, as its entry holds it): its members in the order of the
    /// todo's JSON text (`JSONCoding`'s sorted keys), built without encoding and parsing that text, which took
    /// a good part of a batch's planning.
    static func stored(_ todo: Todo) -> StoredDocument {
        StoredDocument(
            id: id(todo.id),
            object: JSONObject([
                "completed": .bool(todo.completed), "id": .integer(Int64(todo.id)), "title": .string(todo.title),
            ]))
    }

    /// The todo `object` holds (nil: none, or not a todo).
    static func todo(_ object: JSONObject?) -> Todo? {
        guard let object else { return nil }
        // A todo as this store writes it is read from its members; anything else decodes from its JSON text.
        if object.count == 3, case .integer(let id)? = object["id"], let id = Int(exactly: id),
            case .string(let title)? = object["title"], case .bool(let completed)? = object["completed"]
        {
            return Todo(id: id, title: title, completed: completed)
        }
        let change = JournalChange(
            collection: JournalChange.todos, id: "0", document: String(decoding: object.compactBytes, as: UTF8.self))
        if case .upsert(let todo)? = change.todoChange { return todo }
        return nil
    }
}
