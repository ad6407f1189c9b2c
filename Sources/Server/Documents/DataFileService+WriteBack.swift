import Dispatch
import Domain
import Foundation
import HTTP
import LibEvent
import Storage
import StrictJSON
import Support
import Synchronization

extension DataFileService {
    func committed(_ seq: Int64) {
        sync.withLock { $0.committedSeq = max($0.committedSeq, seq) }
        scheduleWriteBack()
    }

    func scheduleWriteBack() {
        guard writesBack else { return }
        let schedule = sync.withLock { sync in
            defer { sync.scheduled = true }
            return !sync.scheduled
        }
        // NB: 500 ms gathers a burst of writes into one rewrite; a large file waits as long as its last rewrite
        // took (at most 800 ms), so rewrites take at most half of a core and the file is within ~1 s.
        let wait = min(800, max(500, sync.withLock { $0.lastRewriteMilliseconds }))
        if schedule { writer.asyncAfter(deadline: .now() + .milliseconds(wait)) { [weak self] in self?.writeBack() } }
    }

    /// Writes the whole state into the file (on the writer queue), if it shows less than what is committed.
    func writeBack() {
        let wanted = sync.withLock { sync in
            sync.scheduled = false
            return sync.committedSeq > sync.fileSeq ? sync.committedSeq : nil
        }
        guard var seq = wanted, writesBack else { return }
        let started = DispatchTime.now()
        var bytes: [UInt8] = []
        var hash = ""
        var written: FileStamp?
        while true {
            // A person's save the watch has not seen yet is loaded first, so the rewrite cannot undo it; the
            // check is made again right before the rename (a save meanwhile is loaded, then all is encoded).
            if FileStamp(path) != sync.withLock({ $0.seen }) { checkFile() }
            if let target = swappedLink() { hold(link: target) }
            if sync.withLock({ $0.held != nil }) { return }
            seq = sync.withLock { max($0.committedSeq, seq) }
            // NB: items are read after `seq` was: the file shows at least every entry up to it.
            let state = currentState()
            (bytes, hash) = encoder.run {
                let bytes = state.encoded()
                return (bytes, DataFileContent.hash(bytes))
            }
            let seen = sync.withLock { $0.seen }
            do {
                // NB: before the rename, so a start after a crash before `markFile` knows the file as its own.
                try journal.markPendingFile(seq: seq, hash: hash)
            } catch {
                Log.error("journal: cannot record the file's coming write-back: \(error.description)")
            }
            do {
                if let stamp = try AtomicFile.replace(
                    path, with: bytes, stillWanted: { FileStamp(path) == seen && swappedLink() == nil })
                {
                    written = stamp
                    break
                }
            } catch {
                Log.error("\(path) not written (\(error)); the journal keeps every change, retrying in 1 s")
                writer.asyncAfter(deadline: .now() + 1) { [weak self] in self?.writeBack() }
                return
            }
        }
        sync.withLock { sync in
            sync.shown.append((.now(), sync.fileSeq))
            sync.fileSeq = max(sync.fileSeq, seq)
            sync.fileHash = hash
            // NB: the file written, not what is at the path now: one deleted or replaced since is the watch's news.
            sync.seen = written
            sync.lastRewriteMilliseconds = Int(
                (DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000)
            let horizon = DispatchTime.now().uptimeNanoseconds &- Self.editorWindow
            while sync.shown.count > 1, sync.shown[1].at.uptimeNanoseconds < horizon { sync.shown.removeFirst() }
        }
        reportSlow(bytes.count)
        if let pause = Self.pauseBeforeMark {
            Log.warning("\(path): written back; its mark waits \(pause) ms (LIVESTATE_TEST_PAUSE_BEFORE_FILE_MARK_MS)")
            Thread.sleep(forTimeInterval: Double(pause) / 1000)
        }
        do {
            try journal.markFile(seq: seq, hash: hash)
            Log.debug("\(path): written back; the journal marks it as it shows every entry up to \(seq)")
        } catch {
            Log.error("journal: cannot record the file's write-back: \(error.description)")
        }
    }

    /// Test-only (docs/testing.md): `LIVESTATE_TEST_PAUSE_BEFORE_FILE_MARK_MS` holds each write-back this long
    /// between the file's rename and its mark in the journal, so a black-box test can `kill -9` the server in
    /// that window. Unset (as everywhere but that test), nothing pauses.
    static let pauseBeforeMark = ProcessInfo.processInfo.environment["LIVESTATE_TEST_PAUSE_BEFORE_FILE_MARK_MS"]
        .flatMap(Int.init)

    /// Says why, at most once a minute, when the last rewrite (of `size` bytes) took more than the second in
    /// which the file is to show each acknowledged change.
    private func reportSlow(_ size: Int) {
        let slow = sync.withLock { sync -> Int? in
            guard sync.lastRewriteMilliseconds > 1000 else { return nil }
            if let last = sync.slowLogged,
                DispatchTime.now().uptimeNanoseconds - last.uptimeNanoseconds < 60_000_000_000
            {
                return nil
            }
            sync.slowLogged = .now()
            return sync.lastRewriteMilliseconds
        }
        guard let slow else { return }
        Log.warning(
            "\(path): rewriting the file (\(DocumentStore.megabytes(size)) MB) took \(slow) ms, so it shows acknowledged"
                + " changes that much later (each is in the journal when answered): the file is replaced whole, and"
                + " its size is the cost of each rewrite")
    }

    /// The resources' items and the file's values as they are now: what the file and a snapshot are written
    /// from.
    func currentState() -> FileState {
        let resources = store.resources.map { (name: $0.name, kind: $0.kind, items: $0.items) }
        let size = store.resources.reduce(0) { $0 + $1.fileSize }
        let kept = values.snapshot
        return FileState(resources: resources, values: kept.values, order: kept.order, size: size)
    }

    /// What `currentState` read.
    struct FileState: Sendable {
        var resources: [(name: String, kind: DocumentResource.Kind, items: DocumentItems)]
        var values: [DataFileValue]
        var order: [String]
        /// About what the resources take in the file, as written.
        var size: Int

        /// The bytes of the file laid out as json-server writes it.
        func encoded() -> [UInt8] {
            DataFileContent.fileBytes(resources, values: values, order: order, size: size)
        }
    }
}
