import Dispatch
import Domain
import Foundation
import HTTP
import Reactive
import Storage
import StrictJSON
import Synchronization

/// The resources of a user's data file and the one path their writes take: a route submits a plan (what
/// to change, given the items now), and the store's commit queue runs plans in order, commits each batch
/// of them in one journal transaction (one disk flush for every write that arrived meanwhile), then sends
/// each committed entry into its resource's view model and answers. A 2xx is sent only after the commit.
///
/// ```swift
/// store.submit({ view throws(HTTPError) in
///     let id = try view.newID(in: "posts", requested: nil)
///     return .init(entries: [.put("posts", id, post)], answer: .created(post))
/// }) { response in respond(response) }
/// ```
final class DocumentStore: Sendable {
    /// One planned change: the item `id` of `resource` becomes `document` (nil: deleted).
    struct Planned: Sendable {
        var resource: String
        var id: DocumentID?
        var document: JSONObject?
    }

    /// What a plan does: its changes, and the response once they are committed.
    struct Plan: Sendable {
        var entries: [Planned]
        var response: Response
    }

    /// A write waiting for the commit queue.
    private struct Pending: Sendable {
        var plan: @Sendable (inout DocumentView) throws(HTTPError) -> Plan
        var respond: @Sendable (Response) -> Void
    }

    /// The resources in the file's order.
    let resources: [DocumentResource]
    /// The resources by name.
    let byName: [String: DocumentResource]
    /// The field holding an item's id (`--id`).
    let idField: String
    /// The suffix of a parent's field (`--foreignKeySuffix`).
    let foreignKeySuffix: String
    /// Called with the journal id of each committed batch's last entry (the file's write-back).
    let onCommit = Mutex<(@Sendable (Int64) -> Void)?>(nil)

    private let journal: SQLiteDocumentJournal
    private let queue = DispatchQueue(label: "livestate-documents-commit")
    private let pending = Mutex<(writes: [Pending], draining: Bool)>(([], false))
    /// Per resource: the next place and the largest numeric id (touched on the commit queue only).
    private let counters: Mutex<DocumentCounters>

    init(
        resources: [DocumentResource], journal: SQLiteDocumentJournal, idField: String, foreignKeySuffix: String
    ) {
        self.resources = resources
        byName = Dictionary(uniqueKeysWithValues: resources.map { ($0.name, $0) })
        self.journal = journal
        self.idField = idField
        self.foreignKeySuffix = foreignKeySuffix
        counters = Mutex(DocumentCounters(resources))
    }

    /// Queues `plan`; `respond` gets its response once its changes are committed and applied (or why not).
    func submit(
        _ plan: @escaping @Sendable (inout DocumentView) throws(HTTPError) -> Plan,
        respond: @escaping @Sendable (Response) -> Void
    ) {
        let start = pending.withLock { state in
            state.writes.append(Pending(plan: plan, respond: respond))
            defer { state.draining = true }
            return !state.draining
        }
        if start { queue.async { [self] in drain() } }
    }

    /// The field of a child naming its parent in `resource` (`posts` → `postId`).
    func parentField(of resource: String) -> String { Self.singular(resource) + foreignKeySuffix }

    /// `posts` → `post`, `categories` → `category`: json-server's pluralize, for the plain English plurals.
    static func singular(_ name: String) -> String {
        if name.hasSuffix("ies"), name.count > 3 { return String(name.dropLast(3)) + "y" }
        if name.hasSuffix("ses") || name.hasSuffix("xes") { return String(name.dropLast(2)) }
        if name.hasSuffix("s"), !name.hasSuffix("ss"), name.count > 1 { return String(name.dropLast()) }
        return name
    }

    /// Runs every queued plan, a batch per journal transaction, until none is left.
    private func drain() {
        while true {
            let batch: [Pending] = pending.withLock { state in
                defer { state.writes = [] }
                if state.writes.isEmpty { state.draining = false }
                return state.writes
            }
            guard !batch.isEmpty else { return }
            run(batch)
        }
    }

    private func run(_ batch: [Pending]) {
        var view = DocumentView(store: self, counters: counters.withLock { $0 })
        var responses: [Response?] = Array(repeating: nil, count: batch.count)
        var planned: [(index: Int, entries: [Planned])] = []
        for (index, write) in batch.enumerated() {
            do throws(HTTPError) {
                let plan = try write.plan(&view)
                for entry in plan.entries { view.record(entry) }
                responses[index] = plan.response
                if !plan.entries.isEmpty { planned.append((index, plan.entries)) }
            } catch {
                responses[index] = Response(error: error)
            }
        }
        let writes = planned.flatMap { $0.entries }.map { entry in
            DocumentWrite(
                resource: entry.resource, key: entry.id?.key ?? "",
                body: entry.document.map { String(decoding: $0.compactBytes, as: UTF8.self) })
        }
        if !writes.isEmpty {
            do throws(JournalError) {
                let seqs = try journal.commit(writes)
                counters.withLock { $0 = view.counters }
                var offset = 0
                for (_, entries) in planned {
                    for entry in entries {
                        apply(
                            DocumentEntry(
                                seq: seqs[offset], resource: entry.resource, id: entry.id, document: entry.document))
                        offset += 1
                    }
                }
                if let last = seqs.last, let onCommit = onCommit.withLock({ $0 }) { onCommit(last) }
            } catch {
                Log.error("data file journal: \(error.description); \(planned.count) write(s) refused")
                let refusal = Response(
                    error: HTTPError(503, "storage_unavailable", "the change could not be stored: \(error.description)")
                )
                for (index, _) in planned { responses[index] = refusal }
            }
        }
        for (index, write) in batch.enumerated() { write.respond(responses[index] ?? Response(error: .internalError)) }
    }

    /// Sends a committed entry into its view model (its event takes the entry's journal id, which the
    /// applied change carries to `/events`).
    func apply(_ entry: DocumentEntry) {
        byName[entry.resource]?.committed.send(entry)
    }
}

/// Per resource, the largest numeric id and whether every id is a string, so a `POST` needs no scan.
struct DocumentCounters: Sendable {
    var maxID: [String: Int64] = [:]
    var stringIDs: Set<String> = []

    init(_ resources: [DocumentResource]) {
        for resource in resources {
            let items = resource.items
            var largest: Int64 = 0
            var strings = 0
            for document in items.documents {
                guard let id = document.id else { continue }
                if case .integer(let number) = id.value { largest = max(largest, number) } else { strings += 1 }
            }
            maxID[resource.name] = largest
            if strings > 0, strings == items.count { stringIDs.insert(resource.name) }
        }
    }
}

/// What a plan sees: every resource's items with the changes of the plans before it in the same batch.
struct DocumentView {
    let store: DocumentStore
    fileprivate(set) var counters: DocumentCounters
    /// The batch's changes so far, by resource and id (nil value: deleted).
    private var overlay: [String: [DocumentID: JSONObject?]] = [:]
    private var singulars: [String: JSONObject] = [:]

    fileprivate init(store: DocumentStore, counters: DocumentCounters) {
        self.store = store
        self.counters = counters
    }

    /// Whether an earlier plan of the batch changed `resource`.
    func hasChanges(in resource: String) -> Bool { !(overlay[resource]?.isEmpty ?? true) }

    /// The item `id` of `resource` as the batch leaves it, or nil.
    func document(_ resource: String, _ id: DocumentID) -> JSONObject? {
        if let changed = overlay[resource]?[id] { return changed }
        return store.byName[resource]?.document(id)?.object
    }

    /// The singular resource's object as the batch leaves it.
    func singular(_ resource: String) -> JSONObject {
        singulars[resource] ?? store.byName[resource]?.singular?.object ?? JSONObject()
    }

    /// Every item of `resource` as the batch leaves it, in order.
    func documents(_ resource: String) -> [(DocumentID, JSONObject)] {
        guard let items = store.byName[resource]?.items else { return [] }
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
        if counters.stringIDs.contains(resource) {
            while true {
                let id = DocumentID.random()
                if document(resource, id) == nil { return id }
            }
        }
        var next = (counters.maxID[resource] ?? 0) + 1
        while document(resource, DocumentID(.integer(next))!) != nil { next += 1 }
        return DocumentID(.integer(next))!
    }

    /// `resource/id` of every item an earlier plan of this batch changed.
    var changedInBatch: Set<String> {
        var keys = Set<String>()
        for (resource, changes) in overlay { for id in changes.keys { keys.insert("\(resource)/\(id.key)") } }
        for resource in singulars.keys { keys.insert("\(resource)/") }
        return keys
    }

    /// Adds a plan's change to the batch (after the plan returned: a plan that throws leaves nothing).
    fileprivate mutating func record(_ entry: DocumentStore.Planned) {
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
