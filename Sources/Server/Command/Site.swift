import HTTP

/// What the server serves: the seed apps (`SeedSite`) or a user's data file (`DataFileSite`), one per process,
/// chosen by `App` at start. A site builds its storage, its resources and their `/events` hub, attached and
/// started, in its initialiser; the server adds what every site has (health, OpenAPI, static files, `/events`).
///
/// ```swift
/// let site: any Site = try SeedSite(configuration: configuration, loop: loops[0], client: client, workers: workers)
/// site.addRoutes(to: &router, app: app)   // the site's own resources
/// site.stop(); hub and workers stop; site.shutdown()   // at shutdown, in this order
/// ```
protocol Site: AnyObject, Sendable {
    /// The `/events` hub of the site's resources, one topic per resource.
    var events: EventHub { get }
    /// The live queries of the site's collections (a list `GET` with `Accept: text/event-stream`).
    var engine: LiveQueryEngine { get }
    /// The topics `/events` serves now (a data file's save may add or remove some).
    var topics: [EventTopic] { get }

    /// Calls back once the journal entry `seq` is applied here (true), or after `timeout` seconds (false): a
    /// `Last-Event-ID` ahead of this instance waits for it.
    func whenApplied(_ seq: Int64, timeout: Double, _ done: @escaping @Sendable (Bool) -> Void)
    /// The bytes of `GET /openapi.json`.
    func openAPIDocument(_ configuration: Configuration) -> [UInt8]
    /// Adds the routes of the site's resources (not `/events`, which the server adds for every site).
    func addRoutes(to router: inout Router, app: App)
    /// Calls `rebuild` whenever the site's set of resources changed, so the routes follow.
    func onResourcesChanged(_ rebuild: @escaping @Sendable () -> Void)
    /// Shutdown, while the hub still holds its events: stops following edits and saves what must outlive
    /// the run.
    func stop()
    /// Shutdown, after the hub: cancels the site's subscriptions and stops its storage.
    func shutdown()
}

extension LiveQueryEngine {
    /// The engine of a site whose hub is `events`: a live query's `Last-Event-ID` from an instance that is
    /// ahead waits for that entry (`whenApplied`), as an `/events` resume does.
    convenience init(
        following events: EventHub, configuration: Configuration,
        whenApplied:
            @escaping @Sendable (_ seq: Int64, _ timeout: Double, _ done: @escaping @Sendable (Bool) -> Void)
            -> Void
    ) {
        self.init(limits: configuration.liveQueries, heartbeat: configuration.heartbeat) { [events] seen, action in
            guard seen > events.lastEventID else { return action() }
            whenApplied(Int64(seen / EventIDSource.journalBlock), 5) { _ in action() }
        }
    }
}
