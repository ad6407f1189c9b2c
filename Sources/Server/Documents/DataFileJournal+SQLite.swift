import Domain
import Foundation
import HTTP
import Storage
import Support

/// A data file's SQLite journal (one server): the file and the entries after its last mark are the state.
extension SQLiteDocumentJournal: DataFileJournal {
    /// Loads `path` and reconciles it with the journal: when the file is as the server last wrote it, the
    /// journal (which may hold acknowledged changes the file does not show yet, after `kill -9`) is the state;
    /// when a person changed the file meanwhile, the file is the state, with the journal's changes it does not
    /// show put back on top of it.
    func startServing(_ path: String, configuration: Configuration) throws -> DataFileStart {
        let writesBack = configuration.dataPath != ":memory:"
        let linkAtStart = AtomicFile.linkTarget(path)
        let content = try DataFileService.load(path, idField: configuration.idField)
        var resources = content.resources
        var dirty = content.assignedIDs
        var replay = DataFileService.Replay(floor: nil, entries: [])
        let mark = try fileMark()
        // Whether the file is as the server last wrote it (a mark of an older build's hash form is checked
        // in that form).
        let showsMark = mark.map { $0.hash == content.hash || DataFileLegacyHash.matches($0.hash, path: path) }
        if let mark {
            let asWritten = showsMark == true && !content.assignedIDs
            // After `kill -9`: the file is as the server wrote it, so the newest entries go through the view
            // models once the hub listens (`start(on:)`), which make their events again.
            let replays = asWritten && mark.top != nil
            // NB: a page at a time, holding only the newest ones a replay may take: a file that could not be
            // written for long (a person's broken save, a full disk) may have any number of entries after its
            // mark, and reading them at once would take memory without bound.
            var (held, applied, lastApplied) = ([JournalEntry](), 0, mark.seq)
            var loaded = ResourcesAfterEntries(resources, idField: configuration.idField)
            var after = mark.seq
            while true {
                let page = try entries(after: after, limit: DataFileService.loadPage)
                held += page
                let older = held.count - (replays ? DataFileService.replayable(held) : 0)
                if older > 0 {
                    try loaded.apply(held[..<older])
                    (applied, lastApplied) = (applied + older, held[older - 1].seq)
                    held.removeFirst(older)
                }
                guard page.count == DataFileService.loadPage, let last = page.last else { break }
                after = last.seq
            }
            if applied + held.count > 0 {
                dirty = true
                if replays, let top = mark.top {
                    replay = DataFileService.replay(&held, top: top, last: lastApplied, count: EventLog.defaultCount)
                }
                try loaded.apply(held[...])
                resources = loaded.resources
                let count = applied + held.count + replay.entries.count
                Log.info(
                    showsMark == true
                        ? "\(path): \(count) acknowledged change(s) the file did not show yet were put back"
                        : "\(path) was edited while stopped; \(count) change(s) it did not show were kept")
            }
        }
        let firstEvent = replay.entries.first.map { UInt64($0.seq - 1) } ?? UInt64(startSeq)
        // A clean stop's events lead exactly here only if the file is as that stop left it and nothing was
        // committed after it; they are taken out either way.
        var saved = try takeEvents()
        if let found = saved,
            mark == nil || dirty || found.seq != mark?.seq || found.hash != mark?.hash
                || showsMark != true
        {
            saved = nil
        }
        // NB: a file that does not show the state yet keeps its old mark until it is written, so the entries
        // it lacks are put back again if the server dies first.
        if !dirty { try markFile(seq: startSeq, hash: content.hash, top: startSeq) }
        if !writesBack { Log.info("\(path): --data :memory: keeps nothing; the file is left as it is") }
        return DataFileStart(
            resources: resources, seq: startSeq,
            values: DataFileValues(content.values, order: content.order, resources: []),
            writesBack: writesBack, linkAtStart: linkAtStart,
            ids: EventIDSource(journalFloor: firstEvent * EventIDSource.journalBlock),
            replay: replay.entries, resumeFloor: replay.floor.map { UInt64($0) * EventIDSource.journalBlock },
            savedEvents: saved?.events ?? [],
            sync: DataFileService.Sync(
                committedSeq: startSeq, fileSeq: dirty ? (mark?.seq ?? 0) : startSeq, fileHash: content.hash,
                seen: FileStamp(path)),
            writeBackNow: writesBack && dirty && replay.entries.isEmpty)
    }

    /// Nothing to follow: no other server commits to this file's journal.
    func follow(_ committed: @escaping @Sendable () -> Void) {}

    func unshown(after seq: Int64) -> [JournalEntry] {
        (try? entries(after: seq)) ?? []
    }

    /// Saves `events` with the file's mark, when given (the file shows every entry), and checkpoints the
    /// write-ahead log into the file.
    func stop(saving events: [EventRecord]?, of path: String) {
        if let events {
            do {
                if let mark = try fileMark() {
                    let saved = events.map { record in
                        SavedEvent(
                            id: Int64(record.id), topic: record.topic.rawValue,
                            frame: String(decoding: record.frame.bytes, as: UTF8.self),
                            diffFrame: record.diffFrame.map { String(decoding: $0.bytes, as: UTF8.self) })
                    }
                    try saveEvents(saved, seq: mark.seq, hash: mark.hash)
                }
            } catch {
                Log.warning("\(path): the recent events were not saved (\(error)); a restart serves current values")
            }
        }
        checkpoint()
    }
}
