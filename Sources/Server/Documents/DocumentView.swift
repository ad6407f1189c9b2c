import Domain
import HTTP
import StrictJSON

/// What a plan sees: every resource's items with the changes of the plans before it in the same batch.
struct DocumentView {
    let store: DocumentStore
    var counters: DocumentCounters
    /// The batch's changes so far, by resource and id (nil value: deleted).
    private var overlay: [String: [DocumentID: JSONObject?]] = [:]
    private var singulars: [String: JSONObject] = [:]
    /// Per collection, the items the batch took out of their places so far, each with the id text of the item
    /// then before it (nil: it was first): `itemBefore` of a later delete steps over them.
    private var gone: [String: [String: String?]] = [:]
    /// Per collection, the id texts of the items the batch put at the end so far and did not delete again, in
    /// order: `itemBefore` of a later delete of one names the one before it, or the last item in its place.
    private var appended: [String: [String]] = [:]

    init(store: DocumentStore, counters: DocumentCounters) {
        self.store = store
        self.counters = counters
    }

    /// Whether an earlier plan of the batch changed `resource`.
    func hasChanges(in resource: String) -> Bool { !(overlay[resource]?.isEmpty ?? true) }

    /// The item `id` of `resource` as the batch leaves it, or nil.
    func document(_ resource: String, _ id: DocumentID) -> JSONObject? {
        if let changed = overlay[resource]?[id] { return changed }
        return store.resource(named: resource)?.document(id)?.object
    }

    /// The singular resource's object as the batch leaves it.
    func singular(_ resource: String) -> JSONObject {
        singulars[resource] ?? store.resource(named: resource)?.singular?.object ?? JSONObject()
    }

    /// Every item of `resource` as the batch leaves it, in order.
    func documents(_ resource: String) -> [(DocumentID, JSONObject)] {
        guard let items = store.resource(named: resource)?.items else { return [] }
        let changes = overlay[resource] ?? [:]
        var result: [(DocumentID, JSONObject)] = []
        for stored in items.documents {
            guard let id = stored.id else { continue }
            if let changed = changes[id] {
                if let object = changed { result.append((id, object)) }
            } else {
                result.append((id, stored.object))
            }
        }
        for (id, changed) in changes where items.document(id) == nil {
            if let changed { result.append((id, changed)) }
        }
        return result
    }

    /// The id of a new item of `resource`: the client's (409 when taken), or the next number, or a random
    /// URL-safe string when the collection's ids are strings.
    mutating func newID(in resource: String, requested: JSONValue?) throws(HTTPError) -> DocumentID {
        if let requested {
            guard let id = DocumentID(requested) else {
                throw HTTPError.badRequest(
                    "'\(store.idField)' must be an integer or a non-empty string, not \(requested.kindDescription)",
                    code: "invalid_id")
            }
            if document(resource, id) != nil {
                throw HTTPError(409, "duplicate_id", "\(resource) already has an item with \(store.idField) \(id.key)")
            }
            return id
        }
        if counters.stringIDs.contains(resource), !isEmpty(resource) {
            while true {
                let id = DocumentID.random()
                if document(resource, id) == nil { return id }
            }
        }
        // The largest id among the items there now, as json-server's: the counter only bounds it from above (a
        // delete leaves it as it was), so it steps down past deleted ids, or reads every id when they are sparse.
        var largest = counters.maxID[resource] ?? 0
        var steps = 0
        while largest > 0, document(resource, DocumentID(.integer(largest))!) == nil {
            steps += 1
            if steps > Self.maxStepsDown {
                largest = largestIntegerID(in: resource)
                break
            }
            largest -= 1
        }
        counters.maxID[resource] = largest
        var next = largest + 1
        while document(resource, DocumentID(.integer(next))!) != nil { next += 1 }
        return DocumentID(.integer(next))!
    }

    /// How many deleted ids a new id steps down past before it reads every id instead.
    private static let maxStepsDown = 64

    /// The largest integer id of `resource` as the batch leaves it (0 when there is none).
    private func largestIntegerID(in resource: String) -> Int64 {
        let changes = overlay[resource] ?? [:]
        var largest: Int64 = 0
        for stored in store.resource(named: resource)?.items.documents ?? [] {
            guard case .integer(let number)? = stored.id?.value, number > largest else { continue }
            if let id = stored.id, case .some(nil) = changes[id] { continue }
            largest = number
        }
        for (id, changed) in changes where changed != nil {
            if case .integer(let number) = id.value { largest = max(largest, number) }
        }
        return largest
    }

    /// Whether `resource` holds no item as the batch leaves it.
    private func isEmpty(_ resource: String) -> Bool { count(resource) == 0 }

    /// How many items `resource` holds as the batch leaves it.
    func count(_ resource: String) -> Int {
        guard let held = store.resource(named: resource) else { return 0 }
        var count = held.count
        for (id, changed) in overlay[resource] ?? [:] {
            let stored = held.document(id) != nil
            if stored, changed == nil { count -= 1 }
            if !stored, changed != nil { count += 1 }
        }
        return count
    }

    /// `resource/id` of every item an earlier plan of this batch changed.
    var changedInBatch: Set<String> {
        var keys = Set<String>()
        for (resource, changes) in overlay { for id in changes.keys { keys.insert("\(resource)/\(id.key)") } }
        for resource in singulars.keys { keys.insert("\(resource)/") }
        return keys
    }

    /// How many bytes `entries` (whose compact JSON is `bodies`) add to the data file as written (negative:
    /// they shrink it), against the items as the batch leaves them so far.
    func fileGrowth(_ entries: [DocumentStore.Planned], bodies: [[UInt8]?]) -> Int {
        var growth = 0
        for (entry, body) in zip(entries, bodies) {
            // NB: a resource held in no data file (the seeds') takes no room in one.
            guard let resource = store.byName[entry.resource] else { continue }
            guard let id = entry.id else {
                // A singular resource: its object, at depth 1.
                let old = singulars[entry.resource]?.compactBytes ?? resource.singular?.bytes ?? []
                let new = body ?? old
                growth +=
                    JSONValue.indentedCount(compact: new, indent: 2, depth: 1)
                    - JSONValue.indentedCount(compact: old, indent: 2, depth: 1)
                continue
            }
            let old: [UInt8]? =
                if let changed = overlay[entry.resource]?[id] { changed?.compactBytes } else {
                    resource.document(id)?.bytes
                }
            growth += body.map(DocumentItems.fileSize(ofCompact:)) ?? 0
            growth -= old.map(DocumentItems.fileSize(ofCompact:)) ?? 0
        }
        return growth
    }

    /// The item before `entry`, as the batch leaves it so far, in the form a data file's journal keeps
    /// (`ItemBefore`; `DocumentRewind` reads it back): `null` when there was none (the entry puts a new item at
    /// the end); `[item]` for an item the entry changes in its place (and a singular resource's object);
    /// `[after,item]` for an item it deletes, `after` being the id text (a JSON string) of the item then before
    /// it, or null when it was first (also when the batch put the item at the end). Nil when not known. Called
    /// for each entry of the batch, in order, before `record(entry)`.
    mutating func itemBefore(_ entry: DocumentStore.Planned) -> String? {
        guard let resource = store.byName[entry.resource] else { return nil }
        guard let id = entry.id else {
            let old = singulars[entry.resource]?.compactBytes ?? resource.singular?.bytes ?? Array("{}".utf8)
            return "[" + String(decoding: old, as: UTF8.self) + "]"
        }
        let changed = overlay[entry.resource]?[id]
        let stored = resource.document(id)
        let old: [UInt8]? = if let changed { changed?.compactBytes } else { stored?.bytes }
        guard let old else {
            // A new item goes to the end of the collection (also one the batch deleted before).
            if entry.document != nil { appended[entry.resource, default: []].append(id.key) }
            return "null"
        }
        let item = String(decoding: old, as: UTF8.self)
        guard entry.document == nil else { return "[" + item + "]" }
        let after: String?
        if let at = appended[entry.resource]?.lastIndex(of: id.key) {
            // An item the batch put at the end: after the one it put there before it, else the last in its place.
            after = at > 0 ? appended[entry.resource]?[at - 1] : inPlace(resource.lastKey, of: entry.resource)
            appended[entry.resource]?.remove(at: at)
        } else {
            // An item in its stored place: after the item before it there that the batch did not take out.
            guard stored != nil, gone[entry.resource]?[id.key] == nil else { return nil }
            after = inPlace(resource.key(before: id), of: entry.resource)
            gone[entry.resource, default: [:]][id.key] = .some(after)
        }
        let place = after.map { String(decoding: JSONValue.string($0).compactBytes, as: UTF8.self) } ?? "null"
        return "[" + place + "," + item + "]"
    }

    /// `key`, or, when the batch took that item out of its place, the item then before it there, and so on: the
    /// item in its place of `resource` that is `key` or nearest before it (nil: none).
    private func inPlace(_ key: String?, of resource: String) -> String? {
        var key = key
        while let at = key, let earlier = gone[resource]?[at] { key = earlier }
        return key
    }

    /// Adds a plan's change to the batch (after the plan returned: a plan that throws leaves nothing).
    mutating func record(_ entry: DocumentStore.Planned) {
        guard let id = entry.id else {
            if let document = entry.document { singulars[entry.resource] = document }
            return
        }
        overlay[entry.resource, default: [:]][id] = .some(entry.document)
        if case .integer(let number) = id.value {
            counters.maxID[entry.resource] = max(counters.maxID[entry.resource] ?? 0, number)
        }
    }
}
