import HTTP
import LibEvent
import Synchronization

/// The service's long-lived parts, built once from a `Configuration` and shared by every route: the loops,
/// what every site has (static files, custom routes, workers, the HTTP client) and the one site served, the
/// seed apps or a user's data file (`Site`), of which only the one served is built.
///
/// Every stored part is built in `init` from `configuration` and the loops, and is `Sendable`: routes run
/// concurrently on every loop's thread.
final class App: Sendable {
    /// The configuration the service started with.
    let configuration: Configuration
    /// The HTTP event loops (`--threads`); `loops[0]` also runs the service's timers.
    let loops: [EventLoop]
    /// What is served: the seed apps, or the user's data file (`livestate FILE.json`).
    let site: any Site
    /// The `/events` hub of the site's resources.
    var events: EventHub { site.events }
    /// Downloads for the seed view models (upstream posts and photos, selected images), on the main loop.
    let httpClient: HTTPClient
    /// The files of `--public`; nil when there is no such folder (then no page is served).
    let staticFiles: StaticFiles?
    /// Threads for CPU-heavy work (placeholder images), so no event loop waits on it.
    let workers = WorkerPool()
    /// json-server's custom routes (`--routes FILE`), which rewrite a request's URL before it is routed; the
    /// file is watched, and a save applies to the requests after it.
    let routes: RoutesWatch?

    /// Creates the loops (not yet running) and the parts built on them.
    init(configuration: Configuration) throws {
        self.configuration = configuration
        // First: an unusable --ca-file or routes file fails the start before any file or thread exists.
        let tls = try TLSClientContext(trust: configuration.caFile.map { .file($0) } ?? .system)
        routes = try configuration.routesFile.map { path throws(DataFileError) in try RoutesWatch(path: path) }
        // With a data file, `--public` serves the user's files instead of the built-in page (only when given).
        let servesFolder = configuration.dataFile == nil || configuration.publicGiven
        staticFiles = servesFolder ? configuration.publicPath.flatMap { StaticFiles(folder: $0) } : nil
        loops = try (0..<max(1, configuration.threads)).map { index throws(LibEventError) in
            try EventLoop(name: "livestate-http-\(index)")
        }
        httpClient = HTTPClient(loop: loops[0], tls: tls)
        // With a data file, `--data` is its journal.
        site =
            if let path = configuration.dataFile {
                try DataFileSite(path: path, configuration: configuration, loop: loops[0])
            } else {
                try SeedSite(configuration: configuration, loop: loops[0], client: httpClient, workers: workers)
            }
        let site = site
        onShutdown { site.engine.shutdown() }
        onShutdown { site.stop() }
        if let routes {
            routes.start(on: loops[0])
            onShutdown { routes.stop() }
        }
        onShutdown { site.events.shutdown() }
        onShutdown { [workers] in workers.stop() }
        let memoryReturn = MemoryReturn.start(on: loops[0]) { site.events.clientCount + site.engine.openCount }
        onShutdown { memoryReturn.cancel() }
        onShutdown { site.shutdown() }
    }

    /// Work to run once at shutdown, after the listeners stopped accepting and streams ended.
    private let shutdownActions = Mutex<[@Sendable () -> Void]>([])

    /// The loop for timers and work that is not tied to a connection.
    var mainLoop: EventLoop { loops[0] }

    /// Registers `action` for shutdown (finish storage writes, cancel subscriptions); runs on the stopping
    /// thread, in the order registered, before the loops stop.
    func onShutdown(_ action: @escaping @Sendable () -> Void) {
        shutdownActions.withLock { $0.append(action) }
    }

    /// Runs the shutdown actions once.
    func runShutdownActions() {
        let actions = shutdownActions.withLock { actions in
            defer { actions = [] }
            return actions
        }
        for action in actions { action() }
    }
}
