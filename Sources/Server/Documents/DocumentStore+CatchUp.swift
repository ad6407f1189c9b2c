import Dispatch
import Domain
import Storage
import Support
import Synchronization

extension DocumentStore {
    /// Calls `done(true)` once the entry `seq` is applied here (at once when it is), or `done(false)` after
    /// `timeout` seconds: a client that saw an event of another server waits until this one has it too.
    func whenApplied(_ seq: Int64, timeout: Double, _ done: @escaping @Sendable (Bool) -> Void) {
        // NB: a journal no other server writes holds nothing beyond what is applied: an id above it is unknown.
        guard journal.isShared else { return done(false) }
        let waiter = AppliedWaiter(seq: seq, done: done)
        let applied = appliedSeq.withLock { applied in
            if seq > applied { waiting.withLock { $0.append(waiter) } }
            return seq <= applied
        }
        guard !applied else { return waiter.call(true) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            self?.waiting.withLock { $0.removeAll { $0 === waiter } }
            waiter.call(false)
        }
        // NB: an entry a catch-up has read already is on its way in: the waiter is released when it is applied.
        guard seq > caughtUpSeq.withLock({ $0 }), catchUp() else { return }
        let queries = heldCatchUps.withLock { count in
            count += 1
            return count
        }
        Log.info("store: catch-up queries \(queries) for held clients")
    }

    /// Applies, on the commit queue, the entries other servers committed since the last one applied here
    /// (a server that shares its database calls it when they announce a commit). False when one is queued
    /// already, which then applies them.
    @discardableResult func catchUp() -> Bool {
        let start = catchUpQueued.withLock { queued in
            defer { queued = true }
            return !queued
        }
        guard start else { return false }
        queue.submit { [self] in
            catchUpQueued.withLock { $0 = false }
            while true {
                let after = appliedSeq.withLock { $0 }
                if journal.announcesNothing(after: after) { return }
                let entries: [JournalEntry]
                do throws(JournalError) {
                    entries = try journal.committed(after: after, limit: 1000)
                } catch {
                    // NB: unavailable: the next announcement or poll tries again.
                    if case .behind = error { takeCurrent() }
                    return
                }
                if let newest = entries.last?.seq { caughtUpSeq.withLock { $0 = max($0, newest) } }
                applyCommitted(entries)
                if entries.count < 1000 { return }
            }
        }
        return true
    }

    /// Sends the entries of other servers into the view models, in order (the ones applied already skipped).
    func applyCommitted(_ records: [JournalEntry]) {
        for record in records where record.seq > appliedSeq.withLock({ $0 }) {
            // NB: a resource that reads its entries' text parses it off this thread (an album image's entry is
            // megabytes of base64, which would hold this server's next batch).
            if let resource = resource(named: record.change.collection), resource.takesText {
                applied(record.seq) { resource.apply(seq: record.seq, text: record.change.document) }
            } else if let entry = entry(record) {
                apply(entry)
            }
        }
    }

    /// This server missed entries that retention deleted (it was away longer than the journal keeps them):
    /// it takes the items as the database holds them after its newest entry, sending each difference into
    /// its view model as a catch-up change (not a journal entry: its event takes an id of this server's),
    /// and follows on from that entry. An item that differs only in member order counts as a difference;
    /// a new item goes to the end of its collection. On the commit queue.
    func takeCurrent() {
        let current: (seq: Int64, resources: [DocumentRows])
        do throws(JournalError) {
            current = try journal.current()
        } catch {
            return Log.warning("data file journal: \(error.description); the next catch-up tries again")
        }
        let after = appliedSeq.withLock { $0 }
        Log.warning(
            "data file journal: entries after \(after) were deleted by retention before this server applied them; "
                + "taking the items as they are at entry \(current.seq)")
        var changes = 0
        for rows in current.resources {
            guard let resource = self.resource(named: rows.name), resource.kind == rows.kind else { continue }
            let held = resource.items
            var inDatabase = Set<String>()
            for (key, body) in rows.items {
                inDatabase.insert(key)
                let now = resource.kind == .singular ? held.singular : held.document(DocumentID(pathSegment: key))
                guard now?.bytes != Array(body.utf8) else { continue }
                let record = JournalEntry(
                    seq: current.seq,
                    change: JournalChange(collection: rows.name, id: key.isEmpty ? nil : key, document: body))
                if let change = entry(record, isJournaled: false) {
                    apply(change)
                    changes += 1
                }
            }
            guard resource.kind == .collection else { continue }
            for document in held.documents {
                guard let id = document.id, !inDatabase.contains(id.key) else { continue }
                apply(DocumentEntry(seq: current.seq, resource: rows.name, id: id, document: nil, isJournaled: false))
                changes += 1
            }
        }
        for rows in current.resources { resource(named: rows.name)?.tookCurrent(at: current.seq) }
        // NB: nothing differed: the entry's id is reached all the same.
        apply(DocumentEntry(seq: current.seq, resource: "", id: nil, document: nil, isJournaled: false))
        Log.info("data file journal: \(changes) item(s) taken from the database; following from entry \(current.seq)")
    }
}
