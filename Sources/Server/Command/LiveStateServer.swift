import Foundation
import HTTP
import LibEvent
import Storage
import Support
import Synchronization

/// The running service: the `App`, its routes, one `HTTPListener` per loop on one listening socket.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.port = 0
/// let server = try LiveStateServer(configuration: configuration)
/// try server.start()
/// print(server.port)
/// server.shutdown()
/// ```
final class LiveStateServer: Sendable {
    /// The service's parts.
    let app: App
    private let socket: ListeningSocket
    private let listeners: [HTTPListener]
    private let stopped = Atomic<Bool>(false)
    /// The folder for large bodies' files (`--body-files`) when it is not a writable directory (the default
    /// `/var/tmp` may be missing); said in a warning at start, and every body then goes from memory.
    private let unusableBodyFiles: String?

    /// Binds the socket, then builds everything; nothing is served until `start()`.
    ///
    /// A failure throws one error and leaves nothing behind: the port is taken before any file is
    /// opened, and a data file this call created is removed again (with its journal files).
    init(configuration: Configuration) throws {
        // First: an untested libevent could frame responses wrongly (`EvhttpInternals`).
        try EvhttpInternals.checkVersion()
        // NB: a client that leaves mid-write must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let socket = try ListeningSocket(host: configuration.host, port: configuration.port)
        let created = DataFile(path: configuration.dataPath)
        let app: App
        do {
            app = try App(configuration: configuration)
        } catch {
            created.removeIfCreated()
            throw error
        }
        let service = HTTPService(
            router: buildRouter(app), token: configuration.token, cors: configuration.cors,
            hosts: configuration.hostPolicy, delay: configuration.delay, undelayedPaths: ["/healthz"],
            gzip: configuration.gzip, rewrites: app.routes?.rewrites, noCache: configuration.dataFile != nil)
        // NB: weak: the app's site holds the action, and the service's routes hold the app.
        app.site.onResourcesChanged { [weak app] in app.map { service.routes.replace(with: buildRouter($0)) } }
        self.app = app
        self.socket = socket
        // Selected photos with relative URLs (the embedded `/placeholder/…`) download from this server.
        app.httpClient.resolveRelativeURLs(against: Self.selfURL(host: configuration.host, port: socket.port))
        let bodyFiles = configuration.bodyFiles.flatMap { Self.isWritableFolder($0) ? $0 : nil }
        unusableBodyFiles = bodyFiles == nil ? configuration.bodyFiles : nil
        let peerStreams = PeerStreams(limit: configuration.maxStreamsPerPeer)
        do {
            listeners = try app.loops.map { loop throws(LibEventError) in
                try HTTPListener(
                    loop: loop, service: service, limits: configuration.listenerLimits, socket: socket,
                    bodyFiles: bodyFiles, peerStreams: peerStreams)
            }
        } catch {
            app.runShutdownActions()
            created.removeIfCreated()
            throw error
        }
    }

    /// The bound port (the real one for `--port 0`).
    var port: Int { socket.port }

    /// `http://HOST:PORT` with the real port (IPv6 addresses in brackets).
    var url: String {
        let host = app.configuration.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// `http://HOST:PORT` to reach this server from itself: a wildcard address becomes loopback.
    private static func selfURL(host: String, port: Int) -> URL {
        let reachable =
            switch host {
            case "0.0.0.0", "": "127.0.0.1"
            case "::": "[::1]"
            default: host.contains(":") ? "[\(host)]" : host
            }
        return URL(string: "http://\(reachable):\(port)")!
    }

    /// Whether `path` is a directory this process may create files in.
    static func isWritableFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            && FileManager.default.isWritableFile(atPath: path)
    }

    /// Starts every loop's thread.
    func start() {
        for loop in app.loops { loop.run() }
        Log.info(
            "serving on \(url) with \(app.loops.count) loop(s), data \(PostgresURI.redacted(app.configuration.dataPath)), "
                + "public \(app.staticFiles?.root ?? "(none)")")
        // NB: said once the server runs, so that a start that fails prints its one line and no more.
        if let options = app.configuration.optionsFile {
            Log.info("options read from \(options) (json-server's options file; a flag wins over it)")
            for line in app.configuration.ignoredOptions { Log.warning(line) }
        }
        if let folder = app.configuration.publicPath, app.staticFiles == nil,
            app.configuration.dataFile == nil || app.configuration.publicGiven
        {
            Log.warning("no static files (no page at /): \(folder) is not a directory; see --public")
        }
        if let folder = unusableBodyFiles {
            Log.warning("large bodies go from memory: \(folder) is not a writable directory; see --body-files")
        }
        // The start's lines (what the load of a data file changed, the options read) reach stderr before the
        // caller prints `listening on`: a person or a script that waits for that line has them all. Info lines
        // are otherwise written up to `Log.flushInterval` later, and only a warning wrote them sooner.
        Log.flush()
    }

    /// Reads json-server's snapshot command (`s` + Enter) from standard input when a data file is served; the
    /// executable's call only, not a test's, whose standard input is the test runner's.
    func readSnapshotCommands() {
        guard let dataFile = (app.site as? DataFileSite)?.dataFile else { return }
        let folder = app.configuration.snapshotsFolder
        if SnapshotCommand(folder: folder, save: { try dataFile.saveSnapshot(into: $0) }).start() {
            Log.info("type s + Enter to save a snapshot of the data in \(SnapshotCommand.relative(folder))")
        }
    }

    /// Stops accepting, ends open streams, runs the app's shutdown actions (storage), lets replies in
    /// flight finish for up to `grace` seconds, then stops the loops; every wait ends by `deadline`.
    /// Idempotent.
    ///
    /// Returns false when a loop was still busy at the deadline (its thread goes on until the process
    /// exits; every write already answered is committed, so nothing acknowledged is lost).
    @discardableResult
    func shutdown(grace: Double = 1.0, deadline: DispatchTime? = nil) -> Bool {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return true }
        let deadline = deadline ?? .now() + 2 * grace + 1
        func within(_ seconds: Double) -> DispatchTime { min(.now() + seconds, deadline) }
        Log.info("shutting down")
        let group = DispatchGroup()
        for listener in listeners {
            group.enter()
            listener.loop.execute {
                listener.stopAccepting()
                listener.endStreams()
                group.leave()
            }
        }
        _ = group.wait(timeout: within(grace))
        app.runShutdownActions()
        let replies = within(grace)
        while listeners.contains(where: \.hasPendingReplies), DispatchTime.now() < replies {
            usleep(5_000)
        }
        // Let the terminating chunks and last replies reach the kernel before the loops stop.
        let flush = within(0.2)
        for listener in listeners {
            let flushed = DispatchSemaphore(value: 0)
            listener.loop.execute { flushed.signal() }
            _ = flushed.wait(timeout: flush)
        }
        var stoppedAll = true
        for loop in app.loops where !loop.stop(waitingUntil: deadline) { stoppedAll = false }
        Log.info(stoppedAll ? "stopped" : "stopped; a loop was still busy at the shutdown deadline")
        Log.flush()
        return stoppedAll
    }
}
