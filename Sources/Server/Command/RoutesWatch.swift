import Dispatch
import Foundation
import HTTP
import LibEvent
import Support
import Synchronization

/// json-server's routes file (`--routes FILE`) while the server runs: read at start (a file that cannot be
/// used stops the start, `RoutesFile`), then watched, so that a save applies to the requests after it. A
/// save that cannot be used is reported in one log line and the rules before it stay.
///
/// ```swift
/// let routes = try RoutesWatch(path: "routes.json")
/// routes.start(on: loop)   // a save of routes.json replaces `routes.rewrites`' rules
/// ```
final class RoutesWatch: Sendable {
    /// The routes file's path.
    let path: String
    /// The rules every request is rewritten by.
    let rewrites: RewriteRules
    /// The rules as the file holds them, which `GET /__rules` answers.
    private let rulesJSON: Mutex<[UInt8]>
    private let watch = Mutex<FolderWatch?>(nil)
    /// Reads a saved file off the loop.
    private let queue = DispatchQueue(label: "livestate-routes")

    /// Reads and compiles the rules of `path`.
    init(path: String) throws(DataFileError) {
        let file = try RoutesFile(path: path)
        self.path = path
        rewrites = RewriteRules(file.rewrites)
        rulesJSON = Mutex(file.rules)
    }

    /// The rules as the file holds them now (the last that could be used).
    var rules: [UInt8] { rulesJSON.withLock { $0 } }

    /// Watches the file's folder on `loop` (a save by rename replaces the file): each save is read again.
    func start(on loop: EventLoop) {
        let file = URL(fileURLWithPath: path)
        let name = file.lastPathComponent
        do {
            let watch = try FolderWatch(
                loop: loop, folder: file.deletingLastPathComponent().path,
                onChange: { [weak self] names in
                    guard let self, names.contains(name) else { return }
                    queue.async { self.reload() }
                })
            self.watch.withLock { $0 = watch }
        } catch {
            Log.warning("\(path) is not watched (\(error.description)); its rules stay as read until a restart")
        }
    }

    /// Stops the watch (shutdown).
    func stop() {
        watch.withLock { watch in
            watch?.cancel()
            watch = nil
        }
    }

    /// Reads the file again: its rules replace the ones in force, or, when it cannot be used, are reported and
    /// the ones in force stay.
    private func reload() {
        // NB: a save by rename removes the name first; the rename that follows is reported too.
        guard FileManager.default.fileExists(atPath: path) else { return }
        let file: RoutesFile
        do {
            file = try RoutesFile(path: path)
        } catch {
            return Log.warning("\(error.description); the routes before this save stay in force")
        }
        let changed = rulesJSON.withLock { rules in
            defer { rules = file.rules }
            return rules != file.rules
        }
        guard changed else { return }
        rewrites.replace(with: file.rewrites)
        Log.info("\(path) changed: \(file.rewrites.rules.count) route(s) in force")
    }
}
