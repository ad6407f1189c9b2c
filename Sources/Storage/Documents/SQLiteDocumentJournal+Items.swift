import Domain
import Foundation

/// A store with no data file (the seeds' `--data` file): the journal keeps its resources' items itself, beside
/// its entries, in the same transaction as each entry (`Holding.items`).
///
/// - `livestate_items`: one row per item (`resource`, `key`: the id's text, `""` for a singular resource,
///   `body`: its JSON), a collection's in its order (the row's insertion); a singular resource's row names
///   its newest entry instead (`entry`, its body empty), which retention keeps;
/// - `livestate_item_ids`: per collection, the largest integer id it has held, deleted ones included, so that
///   a collection numbered by the store (the seeds' todos) never hands out a deleted item's id again;
/// - each entry keeps the item before it (`livestate_entries.before`), from which a restart rebuilds the
///   events of the entries before it by undoing them.
///
/// The file's schema is the seeds' steps (`SQLiteSchema`) and two more. `items`: the todos move from their
/// table into `todos` items (the JSON the server writes, `{"completed":false,"id":1,"title":"Buy Milk"}`),
/// each other input's newest entry becomes its singular resource (frameworks, movies, selection, image,
/// posts, albums, keyword), and the todos' id counter carries over. Entry ids and keys stay as they are. A
/// view `todos` (id, title, completed) shows the todos as the table did, for a person reading the file.
/// `user_version` becomes 5, so a LiveState from before the steps were recorded refuses the file as newer (one
/// since then refuses it by the step's name). `items by entry` adds `livestate_items.entry`.
extension SQLiteDocumentJournal {
    /// Where the items of the journal's resources are kept between its entries.
    package enum Holding: Sendable {
        /// In the data file it journals (`db.json`), which the server writes back: the journal keeps entries.
        case dataFile
        /// In the journal itself (`livestate_items`): a store with no data file.
        case items
    }

    /// The steps of a store's file: the seeds' steps, then `items` (a clock read at `now` for a new file's
    /// journal counter, as the seeds' step does).
    static func storeMigrations(now: Date = Date()) -> SQLiteMigrations {
        let seeds = SQLiteSchema.migrations(now: now)
        return SQLiteMigrations(
            steps: seeds.steps + [("items", moveIntoItems), ("items by entry", addItemEntry)], older: seeds.older)
    }

    /// `livestate_items.entry`: a singular resource's item names its newest entry, whose body is its value,
    /// instead of holding a second copy of it (a 16 MiB album image is some 22 MB of JSON: written once per
    /// commit, not twice). Items kept before the step keep their bodies (`entry` NULL).
    private static func addItemEntry(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute("ALTER TABLE livestate_items ADD COLUMN entry INTEGER")
    }

    /// An item's body, read from its entry when it names one (`items by entry`).
    private static let itemBody =
        "coalesce((SELECT body FROM livestate_entries WHERE seq = item.entry), item.body)"

    private static func moveIntoItems(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute(
            """
            CREATE TABLE livestate_items(
                resource TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (resource, key));
            CREATE TABLE livestate_item_ids(resource TEXT PRIMARY KEY NOT NULL, last INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS livestate_doc_events(
                id INTEGER PRIMARY KEY, topic TEXT NOT NULL, frame TEXT NOT NULL, diff TEXT);
            CREATE TABLE IF NOT EXISTS livestate_doc_events_at(
                only_row INTEGER PRIMARY KEY CHECK (only_row = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
            """)
        // NB: each todo as the server encodes it (`JournalChange(.upsert)`), so an item and its entries agree.
        let todos = try connection.query("SELECT id, title, completed FROM todos ORDER BY id")
        for row in todos {
            guard let id = row[0].integer, let title = row[1].text else { continue }
            let todo = Todo(id: Int(id), title: title, completed: (row[2].integer ?? 0) != 0)
            let change = JournalChange(TodoChange.upsert(todo))
            try connection.query(
                "INSERT INTO livestate_items(resource, key, body) VALUES (?, ?, ?)",
                [.text(change.collection), .text(change.key), .text(change.document ?? "{}")])
        }
        try connection.execute(
            """
            INSERT INTO livestate_item_ids(resource, last)
            SELECT 'todos', max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'todos'), 0),
                                coalesce((SELECT max(id) FROM todos), 0));
            INSERT INTO livestate_items(resource, key, body)
            SELECT resource, '', body FROM livestate_entries AS entry
            WHERE resource NOT IN ('', 'todos') AND body IS NOT NULL
              AND seq = (SELECT max(seq) FROM livestate_entries
                         WHERE resource = entry.resource AND body IS NOT NULL);
            DROP TABLE todos;
            CREATE VIEW todos AS
                SELECT CAST(key AS INTEGER) AS id, json_extract(body, '$.title') AS title,
                       json_extract(body, '$.completed') AS completed
                FROM livestate_items WHERE resource = 'todos';
            PRAGMA user_version = 5;
            """)
    }

    /// Commits `change` as an entry under `key` with the item before it, and keeps the item in step with it.
    static func commitHeld(
        _ change: JournalChange, key: WriteKey?, _ connection: SQLiteConnection
    ) throws(JournalError) -> Int64 {
        let resource = SQLiteValue.text(change.collection)
        let id = SQLiteValue.text(change.key)
        let before = try connection.query(
            "SELECT \(itemBody) FROM livestate_items AS item WHERE resource = ? AND key = ?", [resource, id]
        ).first?.first?.text
        let seq = try SQLiteEntries.insert(change, before: before, key: key, connection)
        if let body = change.document {
            // NB: a singular resource's value is its newest entry's body: the item names the entry (the retention
            // keeps it, `deleteEntries`) rather than holding the same bytes again.
            let singular = change.key.isEmpty
            try connection.query(
                """
                INSERT INTO livestate_items(resource, key, body, entry) VALUES (?, ?, ?, ?)
                ON CONFLICT (resource, key) DO UPDATE SET body = excluded.body, entry = excluded.entry
                """, [resource, id, .text(singular ? "" : body), singular ? .integer(seq) : .null])
        } else {
            try connection.query("DELETE FROM livestate_items WHERE resource = ? AND key = ?", [resource, id])
        }
        if let number = Int64(change.key) {
            try connection.query(
                """
                INSERT INTO livestate_item_ids(resource, last) VALUES (?, ?)
                ON CONFLICT (resource) DO UPDATE SET last = max(last, excluded.last)
                """, [resource, .integer(number)])
        }
        return seq
    }

    /// Deletes the entries up to `seq` but those an item names (`items by entry`): an input set long ago keeps
    /// its one entry.
    static func deleteHeldEntries(upTo seq: Int64, _ connection: SQLiteConnection) throws(JournalError) {
        try connection.query(
            """
            DELETE FROM livestate_entries WHERE seq <= ?
            AND seq NOT IN (SELECT entry FROM livestate_items WHERE entry IS NOT NULL)
            """, [.integer(seq)])
    }

    /// The newest entry of `resource` still held, or nil.
    package func newest(of resource: String) throws(JournalError) -> JournalEntry? {
        try withConnection { connection throws(JournalError) in
            try SQLiteEntries.newest(of: resource, limit: 1, connection).first?.entry
        }
    }

    /// The newest entries of every resource with the item before each, newest first: at most `limit`, within
    /// `bytes` (`SQLiteEntries.recent`): what a restart rebuilds its earlier events from.
    package func recent(limit: Int, bytes: Int) throws(JournalError) -> [JournalRow] {
        try withConnection { connection throws(JournalError) in
            // NB: an entry an item names past the retention (`deleteHeldEntries`) is not read: the entries
            // between it and the ones retention keeps are gone, so no rewind may undo it.
            let newest = try connection.query("SELECT coalesce(max(seq), 0) FROM livestate_entries").first?.first?
                .integer
            let horizon = holding == .items ? (newest ?? 0) - retention : Int64.min
            return try SQLiteEntries.recent(limit: limit, bytes: bytes, connection)
                .prefix { $0.entry.seq > horizon }
                .map { row in JournalRow(seq: row.entry.seq, change: row.entry.change, before: row.before) }
        }
    }

    /// Every resource's items as the journal holds them, after its newest entry (whose id it answers too).
    func heldItems() throws(JournalError) -> (seq: Int64, resources: [DocumentRows]) {
        try withConnection { connection throws(JournalError) in
            let seq =
                try connection.query("SELECT coalesce(max(seq), 0) FROM livestate_entries").first?.first?
                .integer ?? 0
            var largest: [String: Int64] = [:]
            for row in try connection.query("SELECT resource, last FROM livestate_item_ids") {
                if let name = row[0].text, let last = row[1].integer { largest[name] = last }
            }
            var resources: [DocumentRows] = []
            let rows = try connection.query(
                "SELECT resource, key, \(Self.itemBody) FROM livestate_items AS item ORDER BY resource, rowid")
            for row in rows {
                guard let name = row[0].text, let key = row[1].text, let body = row[2].text else { continue }
                if resources.last?.name != name {
                    resources.append(
                        DocumentRows(
                            name: name, kind: key.isEmpty ? .singular : .collection, items: [],
                            largestID: largest[name]))
                }
                resources[resources.count - 1].items.append((key, body))
            }
            for (name, last) in largest where !resources.contains(where: { $0.name == name }) {
                resources.append(DocumentRows(name: name, kind: .collection, items: [], largestID: last))
            }
            return (seq, resources)
        }
    }
}
