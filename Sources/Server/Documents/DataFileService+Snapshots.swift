import Foundation
import Storage
import Synchronization

extension DataFileService {
    /// The file's resets and checkpoints, made on first use (the routes' first build, before the server
    /// listens): the state then is the start a reset goes back to. The routes are built again when a save adds
    /// or removes a resource; the start stays the one the server started with.
    var resets: DocumentResets {
        resetsMade.withLock { made in
            if let made { return made }
            let resets = DocumentResets(
                store: store, checkpoints: checkpoints, savesStart: seededDatabase, maxCheckpoints: maxCheckpoints)
            made = resets
            return resets
        }
    }

    /// Saves the resources as they are now into a new file `db-<milliseconds since 1970>.json` in `folder`,
    /// laid out as the data file is written (json-server's snapshot, `s` + Enter); answers its path.
    ///
    /// The snapshot is taken on the writer queue, so it never runs beside a rewrite of the file, and written
    /// as the file is (a temporary file, fsync, rename): a crash leaves no half snapshot.
    func saveSnapshot(into folder: String, now: Date = Date()) throws(AtomicFileError) -> String {
        let name = "db-\(Int64(now.timeIntervalSince1970 * 1000)).json"
        let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
        let bytes = writer.sync { () -> [UInt8] in
            let state = currentState()
            return encoder.run { state.encoded() }
        }
        try AtomicFile.replace(path, with: bytes)
        return path
    }
}
