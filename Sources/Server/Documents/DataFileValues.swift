import Synchronization

/// The members of a data file that hold no items (`DataFileValue`: value resources and `$schema`) as the file
/// last held them, and the order of the file's keys. Only a person changes them, by editing the file: no
/// route writes a value, so the file is always their truth; the routes read them, and the write-back copies
/// them into the file as they are, where they were.
///
/// ```swift
/// let values = DataFileValues(content.values, order: content.order, resources: [])
/// values.value("tags")?.bytes     // ["a","b"]
/// ```
final class DataFileValues: Sendable {
    private struct State {
        var values: [DataFileValue]
        var order: [String]
    }

    /// The value resources served, in the file's order: fixed at start, as the routes are.
    let served: [String]
    private let state: Mutex<State>

    /// `values` as a file read at start holds them, its keys in `order`; a value named as one of `resources`
    /// (which the database serves, with `--data postgres://…`) is left out.
    init(_ values: [DataFileValue], order: [String], resources: Set<String>) {
        let kept = values.filter { !resources.contains($0.name) }
        served = kept.filter(\.isServed).map(\.name)
        state = Mutex(State(values: kept, order: order))
    }

    /// The value resource or member `name` now, or nil.
    func value(_ name: String) -> DataFileValue? {
        state.withLock { state in state.values.first { $0.name == name } }
    }

    /// Every kept member and the file's key order, taken together (the write-back's and `/db`'s).
    var snapshot: (values: [DataFileValue], order: [String]) {
        state.withLock { ($0.values, $0.order) }
    }

    /// Takes the members of a person's save, `content`: a served value takes its new elements (one the save
    /// no longer holds as such a list keeps its last ones, as a resource does, until a restart), `$schema`
    /// and any new list are kept as saved (or dropped with the save), and the keys take the save's order.
    /// `resources`: the names of the served resources of items, whose key the file keeps for them. Returns
    /// a line for the log per key that is served as before until a restart.
    func update(from content: DataFileContent, resources: Set<String>) -> [String] {
        let saved = Dictionary(content.values.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var notes: [String] = []
        state.withLock { state in
            var values: [DataFileValue] = []
            for name in served {
                if let value = saved[name] {
                    values.append(value)
                } else if let old = state.values.first(where: { $0.name == name }) {
                    // NB: a key that now holds items is logged with the resources (`DataFileService.reload`).
                    values.append(old)
                }
            }
            for value in content.values where !served.contains(value.name) {
                guard !resources.contains(value.name) else {
                    notes.append("'\(value.name)' is now a list of values; restart the server to serve it as one")
                    continue
                }
                values.append(value)
                if value.isServed { notes.append("'\(value.name)' is new; restart the server to serve it") }
            }
            state.values = values
            state.order = content.order
        }
        return notes
    }
}
