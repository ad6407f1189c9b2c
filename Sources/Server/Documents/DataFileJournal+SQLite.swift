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
    ///
    /// When the file is as the server wrote it, the newest entries (a clean stop's as a `kill -9`'s) are undone
    /// from the state by the items before them (`DocumentRewind`, in the file's order: `FileOrderItems`) and go
    /// through the view models again once the hub listens (`start(on:)`), which make their events again with
    /// their ids.
    func startServing(_ path: String, configuration: Configuration) throws -> DataFileStart {
        let writesBack = configuration.dataPath != ":memory:"
        let linkAtStart = AtomicFile.linkTarget(path)
        let content = try DataFileService.load(path, idField: configuration.idField)
        var resources = content.resources
        var dirty = content.assignedIDs
        var mark = try fileMark()
        // Whether the file is as the server last wrote it (a mark of an older build's hash form is checked
        // in that form).
        var showsMark = mark.map { $0.hash == content.hash || DataFileLegacyHash.matches($0.hash, path: path) }
        // The server died between a write-back's rename and its mark: the file is its own, at the pending mark.
        if showsMark != true, let pending = try pendingFileMark(), pending.hash == content.hash {
            Log.info("\(path) is as the server last wrote it (its write-back was not marked yet); its mark is taken")
            try markFile(seq: pending.seq, hash: pending.hash)
            (mark, showsMark) = (pending, true)
        }
        // A first start that gave items ids has no mark, and its file shows those ids only once written back. It
        // is marked now as the file it read, before any entry (a load gives the same ids again), so a `kill -9`
        // before that write-back puts the changes acknowledged meanwhile back on top of it. Without this mark
        // the next start found none and served the file without them.
        if mark == nil, content.assignedIDs {
            try markFile(seq: 0, hash: content.hash)
            (mark, showsMark) = (FileMark(seq: 0, hash: content.hash), true)
        }
        if let mark {
            // NB: a page at a time: a file that could not be written for long (a person's broken save, a full
            // disk) may have any number of entries after its mark.
            var loaded = ResourcesAfterEntries(resources, idField: configuration.idField)
            var (after, count) = (mark.seq, 0)
            while true {
                let page = try entries(after: after, limit: DataFileService.loadPage)
                try loaded.apply(page[...])
                count += page.count
                guard page.count == DataFileService.loadPage, let last = page.last else { break }
                after = last.seq
            }
            if count > 0 {
                dirty = true
                resources = loaded.resources
                Log.info(
                    showsMark == true
                        ? "\(path): \(count) acknowledged change(s) the file did not show yet were put back"
                        : "\(path) was edited while stopped; \(count) change(s) it did not show were kept")
            }
        }
        var rewind: DocumentRewind<FileOrderItems>?
        if mark != nil, showsMark != true || content.assignedIDs {
            // The items before the entries so far are of the file as it was, not as it is.
            try keepFromRewinding(upTo: startSeq)
        } else if mark != nil {
            // NB: twice the recent-events log's bytes: the events of the entries read fill it, and none past it.
            let floor = try rewindFloor()
            let recent = try recent(limit: EventLog.defaultCount, bytes: 2 * EventLog.defaultBytes)
            rewind = DocumentRewind(
                resources, recent: recent.filter { $0.seq > floor }, count: EventLog.defaultCount,
                idField: configuration.idField)
        }
        let replay = rewind?.entries ?? []
        let floor = replay.first.map { $0.seq - 1 }
        if let floor {
            Log.info(
                "\(path): the newest \(replay.count) change(s), after entry \(floor), go through the view"
                    + " models again: a Last-Event-ID from before this start resumes")
        }
        // The events an older LiveState's clean stop saved (it kept no item before its entries, so nothing is
        // undone): they lead exactly here only if the file is as that stop left it and nothing was committed
        // after it. Taken out either way, so they are served at most once.
        var saved = try takeEvents()
        if let found = saved,
            mark == nil || dirty || found.seq != mark?.seq || found.hash != mark?.hash
                || showsMark != true || floor != nil
        {
            saved = nil
        }
        // NB: a file that does not show the state yet keeps its old mark until it is written, so the entries
        // it lacks are put back again if the server dies first.
        if !dirty { try markFile(seq: startSeq, hash: content.hash) }
        if !writesBack { Log.info("\(path): --data :memory: keeps nothing; the file is left as it is") }
        return DataFileStart(
            resources: rewind?.resources ?? resources, seq: startSeq,
            values: DataFileValues(content.values, order: content.order, resources: []),
            writesBack: writesBack, linkAtStart: linkAtStart,
            ids: EventIDSource(journalFloor: UInt64(floor ?? startSeq) * EventIDSource.journalBlock),
            replay: replay, resumeFloor: floor.map { UInt64($0) * EventIDSource.journalBlock },
            savedEvents: saved?.events ?? [],
            sync: DataFileService.Sync(
                committedSeq: startSeq, fileSeq: dirty ? (mark?.seq ?? 0) : startSeq, fileHash: content.hash,
                seen: FileStamp(path)),
            writeBackNow: writesBack && dirty && replay.isEmpty)
    }

    /// Nothing to follow: no other server commits to this file's journal.
    func follow(_ committed: @escaping @Sendable () -> Void) {}

    func unshown(after seq: Int64) -> [JournalEntry] {
        (try? entries(after: seq)) ?? []
    }

    /// Copies the write-ahead log into the journal's file (a clean stop leaves one file).
    func stopServing() {
        checkpoint()
    }
}
