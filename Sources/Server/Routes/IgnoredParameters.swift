import Domain
import HTTP
import StrictJSON
import Support
import Synchronization

/// The query parameters a data file's lists ignore, as json-server 0.17 does: a field no item of the
/// collection has, jQuery's `_` and JSONP's `callback`. The log names each once per parameter name, so that
/// a user whose filter quietly does nothing can learn why without a line per request.
enum IgnoredParameters {
    /// The names already logged, bounded: a client sending endless new names cannot grow it.
    private static let logged = Mutex<Set<String>>([])
    private static let maxLogged = 1_000

    /// `query` without the filters on fields no item of `resource` has; logs what it left out.
    static func apply(to query: inout DocumentQuery, parameters: QueryParameters, of resource: DocumentResource) {
        for name in parameters.names {
            switch name {
            case "_": note(name, "jQuery's cache buster (cache: false): ignored, as json-server does")
            case "callback": note(name, "ignored: LiveState has no JSONP (a <script> on any site could read the data)")
            default: break
            }
        }
        guard !query.filters.isEmpty else { return }
        let (items, seq) = resource.itemsAndSeq
        for name in query.ignoreAbsentFields({ path in
            known(path, resource, items, seq) ?? remember(path, resource, seq, item(of: items.documents, having: path))
        }) {
            note(name, "no item of '\(resource.name)' has that field, so it is ignored, as json-server 0.17 does")
        }
    }

    /// Whether some item of a collection has a value at a path, as found for one state of it (`seq`): a field no
    /// item has (a cache buster such as `?t=…`) is looked for in every item's bytes once, not per request
    /// (about 0.1 s of CPU on 100,000 items in a debug build), and after a write only in the items it wrote
    /// (`DocumentChangeLog`); a field some item has, while that item is unchanged. Bounded as `logged` is.
    private struct Known: Sendable {
        weak var resource: DocumentResource?
        var seq: Int64
        /// An item that has it; nil when none has.
        var holder: StoredDocument?
    }

    private static let knownFields = Mutex<[[String]: [Known]]>([:])

    private static func known(_ path: [String], _ resource: DocumentResource, _ items: DocumentItems, _ seq: Int64)
        -> Bool?
    {
        let found = knownFields.withLock { known in known[path]?.first { $0.resource === resource } }
        guard let found, found.seq <= seq else { return nil }
        if found.seq == seq { return found.holder != nil }
        if let holder = found.holder {
            guard let id = holder.id, items.document(id) === holder else { return nil }
            return remember(path, resource, seq, holder)
        }
        guard let changes = items.log.changes(after: found.seq) else { return nil }
        var written: [StoredDocument] = []
        for change in changes where change.kind != .deleted && change.slot < items.slotCount {
            if let item = items.slot(change.slot) { written.append(item) }
        }
        return remember(path, resource, seq, item(of: written, having: path))
    }

    private static func remember(
        _ path: [String], _ resource: DocumentResource, _ seq: Int64, _ holder: StoredDocument?
    )
        -> Bool
    {
        knownFields.withLock { known in
            if known.count >= maxLogged, known[path] == nil { known.removeAll() }
            var entries = (known[path] ?? []).filter { $0.resource != nil && $0.resource !== resource }
            entries.append(Known(resource: resource, seq: seq, holder: holder))
            known[path] = entries
        }
        return holder != nil
    }

    private static func note(_ name: String, _ reason: String) {
        let first = logged.withLock { names in
            guard names.count < maxLogged else { return false }
            return names.insert(name).inserted
        }
        // NB: the name as the client wrote it may hold anything; a log line holds at most 100 of its characters.
        if first { Log.info("query parameter '\(String(name.prefix(100)))': \(reason) (said once)") }
    }

    /// The first item that has a value at `path`, or nil: first the bytes of each item are searched for the first
    /// member's key (`"name":`), so that only items that may have it are parsed (a field no item has, on a
    /// large collection whose items keep only their bytes, costs a scan of the bytes, not a parse of each).
    static func item(of items: [StoredDocument], having path: [String]) -> StoredDocument? {
        guard let first = path.first else { return nil }
        var needle: [UInt8] = []
        JSONValue.writeString(first, into: &needle)
        needle.append(UInt8(ascii: ":"))
        for item in items where ByteSearch.contains(item.bytes, needle) {
            if item.object.value(at: path) != nil { return item }
        }
        return nil
    }

    /// Whether some item of `items` has a value at `path` (`item(of:having:)`).
    static func someItem(of items: [StoredDocument], has path: [String]) -> Bool {
        item(of: items, having: path) != nil
    }
}
