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
}
