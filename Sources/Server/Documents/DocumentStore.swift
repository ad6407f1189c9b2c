import Dispatch
import Domain
import Foundation
import HTTP
import Reactive
import Storage
import StrictJSON
import Support
import Synchronization

/// The resources of a user's data file and the one path their writes take: a route submits a plan (what
/// to change, given the items now), and the store runs plans in order, one batch at a time, commits each
/// batch in one journal transaction (one disk flush for every write that arrived meanwhile), then sends
/// each committed entry into its resource's view model and answers. A 2xx is sent only after the commit.
/// Batches run on the store's own thread (`livestate-write`): an event loop only hands a plan over and
/// later sends the answer, so no loop waits for a commit's disk flush or a database round trip.
///
/// With several servers on one PostgreSQL database, a batch first applies what the others committed (under
/// the journal's writer lock, so it plans on the current state), and `catchUp` applies their commits as
/// they are announced: every server sends the same entries, in the same order, into its view models.
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
        /// `document`'s compact JSON when the submitter encoded it already, off the write thread (an album
        /// image's entry is megabytes of base64); nil: encoded here.
        var body: [UInt8]? = nil
    }

    /// What a plan does: its changes, and the response once they are committed.
    struct Plan: Sendable {
        var entries: [Planned]
        var response: Response
        /// Whether each item is held to `maxItemFileSize`: a client's write is; a person's save is not (the
        /// file already holds it, and refusing it would leave the file and the state apart).
        var boundsItems = true
        /// The response once committed, given the journal ids its entries took, in order (nil: `response`):
        /// an answer that names its entry.
        var answer: (@Sendable ([Int64]) -> Response)?
        /// Take the download claim of its first entry in the commit's transaction (an album selection on a
        /// journal several servers share: `JournalWrite.claim`).
        var claim = false
    }

    /// A write sent with an `Idempotency-Key`: the key (with its request), and how its route answers it
    /// again from the first entry of the write that committed under the key.
    struct Keyed: Sendable {
        var key: WriteKey
        var answer: @Sendable (JournalChange) -> Response
    }

    /// A write waiting for its batch.
    private struct Pending: Sendable {
        var plan: @Sendable (inout DocumentView) throws(HTTPError) -> Plan
        var keyed: Keyed?
        var respond: @Sendable (Response) -> Void
        /// How storage's refusal of it is answered.
        var refusal: @Sendable (JournalError) -> Response
        /// When it was submitted: its batch must be answered within `answerWithin` of it.
        var submitted: DispatchTime
    }

    /// How long a write may wait for its commit before it is answered 503 (or 504 when the commit was sent).
    static let answerWithin = DispatchTimeInterval.milliseconds(4500)

    /// The resources in the file's order (a person's save may add or remove some: `replaceResources`).
    var resources: [DocumentResource] { served.withLock { $0.resources } }
    /// The resources by name.
    var byName: [String: DocumentResource] { served.withLock { $0.byName } }
    private let served: Mutex<(resources: [DocumentResource], byName: [String: DocumentResource])>
    /// The resources held in no data file (fixed at start), by name.
    private let others: [String: any StoreResource]
    /// The field holding an item's id (`--id`).
    let idField: String
    /// The suffix of a parent's field (`--foreignKeySuffix`).
    let foreignKeySuffix: String
    /// Whether other servers write to the same journal (PostgreSQL).
    var isShared: Bool { journal.isShared }
    /// Called with the journal id of each committed batch's last entry (the file's write-back).
    ///
    /// NB: the closure is a field of a struct, not the `Mutex`'s value itself: a closure read through the
    /// generic `inout` of `withLock` is written back wrapped in one more reabstraction thunk each time, so each
    /// commit cost more than the one before (a quarter of the CPU after 14,000 writes).
    let onCommit = Mutex(CommitHandler())

    /// What `onCommit` calls.
    struct CommitHandler: Sendable {
        var call: (@Sendable (Int64) -> Void)?
    }

    let journal: any DocumentJournal
    /// The journal id of the last entry sent into the view models.
    let appliedSeq: Mutex<Int64>
    /// The journal id of the last entry whose sending into its view model has begun: no item read before
    /// this is read shows an entry after it.
    private let sendingSeq: Mutex<Int64>
    /// A catch-up is queued and has not started yet (one is enough for any number of announcements).
    let catchUpQueued = Mutex(false)
    /// The journal id of the newest entry a catch-up has read: set before it sends them in, so a client
    /// waiting for an entry up to it is released by that sending and needs no query of its own.
    let caughtUpSeq = Mutex(Int64.min)
    /// The callers of `whenApplied` waiting for an entry not applied yet.
    let waiting = Mutex<[AppliedWaiter]>([])
    /// The catch-ups (each a query of the journal) started because a client came with an entry not applied
    /// here, each logged as it starts, so what a reconnect storm cost shows in the log.
    let heldCatchUps = Mutex(0)
    /// The thread every batch and catch-up runs on, one at a time (its name shows where the flushes run).
    let queue = BackgroundThread(name: "livestate-write", priority: .normal)
    private let pending = Mutex<(writes: [Pending], draining: Bool)>(([], false))
    /// Per resource: the next place and the largest numeric id (touched by the batch under way only).
    private let counters: Mutex<DocumentCounters>

    /// The most bytes the data file may hold as written (`--max-file-mb`): a write that would grow it past
    /// them is refused (507 `data_file_full`), one that shrinks it never is.
    let maxFileSize: Int

    init(
        resources: [DocumentResource], others: [any StoreResource] = [], journal: any DocumentJournal,
        appliedSeq: Int64, idField: String, foreignKeySuffix: String,
        maxFileSize: Int = DocumentStore.defaultMaxFileSize
    ) {
        self.maxFileSize = maxFileSize
        served = Mutex((resources, Dictionary(uniqueKeysWithValues: resources.map { ($0.name, $0) })))
        self.others = Dictionary(uniqueKeysWithValues: others.map { ($0.name, $0) })
        self.appliedSeq = Mutex(appliedSeq)
        sendingSeq = Mutex(appliedSeq)
        self.journal = journal
        self.idField = idField
        self.foreignKeySuffix = foreignKeySuffix
        counters = Mutex(DocumentCounters(resources + others))
    }

    /// The resource `name`, a data file's or one held in no file; nil when the store holds none of that name.
    func resource(named name: String) -> (any StoreResource)? { byName[name] ?? others[name] }

    /// Serves `resources` (in the file's order) from now on, in place of the ones served: a person's save added
    /// or removed some. A write planned on the set before it and committed after it to a resource no longer
    /// served is kept in the journal but sent into no view model, as an entry of a resource a restart does not
    /// serve.
    func replaceResources(_ resources: [DocumentResource]) {
        served.withLock { $0 = (resources, Dictionary(uniqueKeysWithValues: resources.map { ($0.name, $0) })) }
        let added = DocumentCounters(resources)
        counters.withLock { counters in
            for resource in resources where counters.maxID[resource.name] == nil {
                counters.maxID[resource.name] = added.maxID[resource.name]
                if added.stringIDs.contains(resource.name) { counters.stringIDs.insert(resource.name) }
            }
        }
    }

    /// `--max-file-mb`'s default: half of what a start reads (`DataFileService.maxFileBytes`), so a file
    /// that grew to it still loads after a person's edits.
    static let defaultMaxFileSize = 512 << 20

    /// Queues `plan`; `respond` gets its response once its changes are committed and applied (or why not).
    /// With `keyed`, a write committed under the same key before (by any server, in any run, while retention
    /// keeps its entry) is answered from that write's first entry instead and nothing is planned; a key
    /// committed by another request is a 422.
    /// `refusal` answers storage's refusal (by default its HTTP answer, `JournalError+HTTPResponseError`).
    func submit(
        _ plan: @escaping @Sendable (inout DocumentView) throws(HTTPError) -> Plan, keyed: Keyed? = nil,
        refusal: @escaping @Sendable (JournalError) -> Response = { Response(error: $0) },
        respond: @escaping @Sendable (Response) -> Void
    ) {
        let bounded = journal.isShared
        let start: Bool? = pending.withLock { state in
            // NB: a database that stalls must not gather writes without end: beyond the bound, none waits.
            if bounded, state.writes.count >= Self.queueLimit { return nil }
            state.writes.append(
                Pending(plan: plan, keyed: keyed, respond: respond, refusal: refusal, submitted: .now()))
            defer { state.draining = true }
            return !state.draining
        }
        guard let start else {
            return respond(refusal(.busy("\(Self.queueLimit) writes are already waiting for PostgreSQL")))
        }
        guard start else { return }
        queue.submit { [self] in drain() }
    }

    /// The most writes waiting for a batch on a database several servers share; beyond, a write is refused at
    /// once with 503 `storage_busy` (`Retry-After: 1`), never applied later.
    static let queueLimit = 1024

    /// Runs `work` on the commit queue, between two batches: a call on the journal's one connection that is
    /// not a batch (a checkpoint's) must not fall inside a batch's transaction on PostgreSQL.
    func betweenBatches(_ work: @escaping @Sendable () -> Void) { queue.submit(work) }

    /// The field of a child naming its parent in `resource` (`posts` → `postId`).
    func parentField(of resource: String) -> String { Self.singular(resource) + foreignKeySuffix }

    /// `posts` → `post`, `people` → `person`: json-server's singular (`EnglishSingular`).
    static func singular(_ name: String) -> String { EnglishSingular.of(name) }

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
        var responses: [Response?] = Array(repeating: nil, count: batch.count)
        // NB: each entry's compact JSON, encoded once: weighed against the file's limit, then committed.
        var planned: [(index: Int, entries: [Planned], bodies: [[UInt8]?], before: [String?])] = []
        let givesItemsBefore = journal.keepsGivenItemsBefore
        var answers: [Int: @Sendable ([Int64]) -> Response] = [:]
        var planRan = false
        var batchCounters: DocumentCounters?
        // NB: a write sent again while its first attempt is in the same batch takes that one's answer.
        var sameAs: [(index: Int, first: Int)] = []
        let deadline = (batch.map(\.submitted).min() ?? .now()) + Self.answerWithin
        let keys = batch.compactMap { $0.keyed?.key.key }
        do throws(JournalError) {
            let seqs = try journal.commitBatch(after: appliedSeq.withLock { $0 }, keys: keys, until: deadline) {
                others, keyed in
                applyCommitted(others)
                // NB: a journal may plan a batch twice (`DocumentJournal.commitBatch`): the second plan answers anew.
                (responses, planned, answers, sameAs) = (Array(repeating: nil, count: batch.count), [], [:], [])
                planRan = true
                var view = DocumentView(store: self, counters: counters.withLock { $0 })
                var fileSize = resources.reduce(0) { $0 + $1.fileSize }
                var plannedKeys: [String: Int] = [:]
                var claims: Set<Int> = []
                for (index, write) in batch.enumerated() {
                    if let sent = write.keyed {
                        if let first = keyed[sent.key.key] {
                            responses[index] =
                                first.request == sent.key.request
                                ? sent.answer(first.entry.change) : write.refusal(.keyReused)
                            continue
                        }
                        if let first = plannedKeys[sent.key.key] {
                            if batch[first].keyed?.key.request == sent.key.request {
                                sameAs.append((index, first))
                            } else {
                                responses[index] = write.refusal(.keyReused)
                            }
                            continue
                        }
                    }
                    do throws(HTTPError) {
                        let plan = try write.plan(&view)
                        let bodies = plan.entries.map { $0.body ?? $0.document?.compactBytes }
                        if plan.boundsItems { try Self.checkItemFileSize(bodies) }
                        let growth = view.fileGrowth(plan.entries, bodies: bodies)
                        if growth > 0, fileSize + growth > maxFileSize { throw full(growth, of: fileSize) }
                        fileSize += growth
                        var before: [String?] = []
                        for entry in plan.entries {
                            if givesItemsBefore { before.append(view.itemBefore(entry)) }
                            view.record(entry)
                        }
                        responses[index] = plan.response
                        if let answer = plan.answer { answers[index] = answer }
                        if !plan.entries.isEmpty {
                            planned.append((index, plan.entries, bodies, before))
                            if plan.claim { claims.insert(index) }
                            if let sent = write.keyed { plannedKeys[sent.key.key] = index }
                        }
                    } catch {
                        responses[index] = Response(error: error)
                    }
                }
                batchCounters = view.counters
                return planned.map { index, entries, bodies, before in
                    var write = JournalWrite(
                        changes: zip(entries, bodies).map { entry, body in
                            JournalChange(
                                collection: entry.resource, id: entry.id?.key,
                                document: body.map { String(decoding: $0, as: UTF8.self) })
                        }, key: batch[index].keyed?.key, claim: claims.contains(index))
                    write.itemsBefore = before
                    return write
                }
            }
            if !seqs.isEmpty, let batchCounters { counters.withLock { $0 = batchCounters } }
            var offset = 0
            for (index, entries, _, _) in planned where offset < seqs.count {
                if let answer = answers[index] {
                    responses[index] = answer(Array(seqs[offset..<offset + entries.count]))
                }
                for entry in entries {
                    apply(
                        DocumentEntry(
                            seq: seqs[offset], resource: entry.resource, id: entry.id, document: entry.document))
                    offset += 1
                }
            }
            if let last = seqs.last, let onCommit = onCommit.withLock({ $0.call }) { onCommit(last) }
        } catch {
            Log.error(
                "data file journal: \(error.description); \(planRan ? planned.count : batch.count) write(s) refused")
            if case .behind = error { takeCurrent() }
            if planRan {
                for (index, _, _, _) in planned {
                    // NB: an outcome unknown names the key the write was sent with (the server's, without the
                    // client's), to send it again with.
                    var refusal = error
                    if case .outcomeUnknown = error { refusal = .outcomeUnknown(key: batch[index].keyed?.key.key) }
                    responses[index] = batch[index].refusal(refusal)
                }
            } else {
                responses = batch.map { $0.refusal(error) }
            }
        }
        for (index, first) in sameAs { responses[index] = responses[first] }
        for (index, write) in batch.enumerated() { write.respond(responses[index] ?? Response(error: .internalError)) }
    }

    /// The refusal of a write that would grow the file, of `size` bytes, by `growth` past `maxFileSize`: the
    /// file must stay loadable, and the memory it takes bounded by configuration, whatever clients send.
    private func full(_ growth: Int, of size: Int) -> HTTPError {
        let megabytes = { (bytes: Int) in String(format: "%.1f", Double(bytes) / 1_048_576) }
        return HTTPError(
            507, "data_file_full",
            "the data file would grow to \(megabytes(size + growth)) MB, past its limit of"
                + " \(megabytes(maxFileSize)) MB (--max-file-mb); nothing was changed. Delete items, or start the"
                + " server with a larger limit")
    }

    /// The newest entry any view model may show: items read before this is read show no entry after it (what
    /// a reset's snapshot is taken with, `DocumentResets`).
    var newestSent: Int64 { sendingSeq.withLock { $0 } }

    /// Sends entries read from the journal into their view models, in order, as if just committed: at start,
    /// the acknowledged changes the data file did not show yet (after `kill -9`), so their events are made
    /// again by the same pipeline, with the same ids.
    func replay(_ records: [JournalEntry]) {
        for record in records {
            if let entry = entry(record) { apply(entry) }
        }
    }

    /// `record` as an entry of its resource (nil, logged, when its item is not an object or its resource
    /// is not served); counts its numeric id for the next new id.
    func entry(_ record: JournalEntry, isJournaled: Bool = true) -> DocumentEntry? {
        let change = record.change
        guard let resource = self.resource(named: change.collection) else { return nil }
        var document: JSONObject?
        if let body = change.document {
            guard case .object(let object)? = try? JSONValue(parsing: Array(body.utf8), maxDepth: 256) else {
                Log.error("data file journal: entry \(record.seq) does not hold an object; skipped")
                return nil
            }
            document = object
        }
        let id: DocumentID? =
            resource.kind == .singular ? nil : DocumentID(pathSegment: change.id ?? "").withValue(document?[idField])
        if case .integer(let number)? = id?.value {
            counters.withLock { $0.maxID[change.collection] = max($0.maxID[change.collection] ?? 0, number) }
        }
        return DocumentEntry(
            seq: record.seq, resource: change.collection, id: id, document: document, isJournaled: isJournaled)
    }

    /// Sends a committed entry into its view model (its event takes the entry's journal id, which the
    /// applied change carries to `/events`).
    func apply(_ entry: DocumentEntry) {
        applied(entry.seq) { resource(named: entry.resource)?.apply(entry) }
    }

    /// Runs `send`, the sending of entry `seq` into its view model, then counts the entry applied.
    func applied(_ seq: Int64, sending send: () -> Void) {
        sendingSeq.withLock { $0 = max($0, seq) }
        send()
        // NB: after the send: a waiter released now finds the entry's event in the buffer.
        let released = appliedSeq.withLock { applied in
            applied = max(applied, seq)
            return waiting.withLock { waiting in
                let ready = waiting.filter { $0.seq <= applied }
                waiting.removeAll { $0.seq <= applied }
                return ready
            }
        }
        for waiter in released { waiter.call(true) }
    }
}
