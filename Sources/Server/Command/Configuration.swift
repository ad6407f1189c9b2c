import Domain
import Foundation
import HTTP
import LibEvent

/// Everything the command line and environment decide, with the contract's defaults.
///
/// Built once at the edge (`Configuration.parse`); tests build one directly with `port: 0`.
struct Configuration: Sendable, Equatable {
    /// The address to listen on.
    var host = "127.0.0.1"
    /// The port; 0 takes a free one.
    var port = 8080
    /// The SQLite file for todos, or `:memory:`.
    var dataPath = "./livestate.sqlite"
    /// The folder of static files served at `/`; nil serves none.
    var publicPath: String? = "./public"
    /// Whether `--public` (or its variable) named the folder: with a data file, only then is it served
    /// instead of the built-in page.
    var publicGiven = false
    /// The user's JSON data file (`livestate FILE.json`, `LIVESTATE_FILE`): its resources are served instead
    /// of the seed view models.
    var dataFile: String?
    /// The field that holds an item's id in the data file (`--id`).
    var idField = "id"
    /// The suffix of a field naming a parent item (`--foreignKeySuffix`): `postId` points into `posts`.
    var foreignKeySuffix = "Id"
    /// Every write to the data file's resources answers 405 (`--read-only`).
    var readOnly = false
    /// The most bytes the data file may grow to, as written (`--max-file-mb`).
    var maxFileSize = DocumentStore.defaultMaxFileSize
    /// The most checkpoints a data file's journal keeps (`--max-checkpoints`): each holds a whole state.
    var maxCheckpoints = DocumentResets.defaultMaxCheckpoints
    /// Seconds every reply waits before its work starts (`--delay`, given in milliseconds); 0: none.
    var delay: Double = 0
    /// json-server's routes file (`--routes`): rules that rewrite a request's URL before it is routed.
    var routesFile: String?
    /// The folder `s` + Enter on standard input saves a snapshot of a data file's resources in
    /// (`--snapshots`, json-server's; `db-<milliseconds>.json`).
    var snapshotsFolder = "."
    /// json-server's options file the options were read from too (`--config`, or `json-server.json`).
    var optionsFile: String?
    /// The log lines naming the options file's options left out because they would widen what is exposed
    /// (`JSONServerConfig.withoutWidening`).
    var ignoredOptions: [String] = []
    /// Only warnings and errors are logged (`--quiet`), as with `LOG_LEVEL=warning`.
    var quiet = false
    /// Responses are gzipped for clients that accept it (off with `--no-gzip`).
    var gzip = true
    /// A jsonplaceholder-compatible base URL; nil uses the embedded data set.
    var upstream: URL?
    /// A PEM file of the certificate authorities https downloads trust instead of the system store.
    var caFile: String?
    /// With a token, mutating requests need `Authorization: Bearer <token>`.
    var token: String?
    /// Seconds between `: keep-alive` comments on `/events`.
    var heartbeat: Double = 15
    /// Event loops (threads) serving HTTP: by default one per processor (`defaultThreads`).
    var threads = Configuration.defaultThreads
    /// The most todos the list holds; a `POST /todos` beyond it is a 422 `too_many_todos`.
    var maxTodos = TaskListViewModel.defaultMaxCount
    /// How many of the newest journal entries the events table keeps (`--journal-retention`): how far back
    /// `Last-Event-ID` resume after a restart (SQLite) and an instance's catch-up (PostgreSQL) can reach.
    var journalRetention = Configuration.defaultJournalRetention
    /// Allowed CORS origins (by default loopback ones on any port); nil (`--cors none`) means CORS is off.
    var cors: CORSPolicy? = .loopback
    /// Host names requests may be addressed to besides loopback ones (`--allowed-hosts`); nil: none given.
    var allowedHosts: HostPolicy?
    /// The bounds of live queries: how many may be open (`--max-live-queries`), how much history each
    /// collection keeps for `Last-Event-ID`.
    var liveQueries = LiveQueryEngine.Limits()
    /// The most open streams (`/events` and live queries) one client address may hold
    /// (`--max-streams-per-peer`); 0: no cap.
    var maxStreamsPerPeer = 512
    /// Largest request body accepted (the contract's 1 MiB).
    var maxBodySize = 1 << 20
    /// Largest request head (request line + headers) accepted.
    var maxHeadersSize = 64 << 10
    /// Seconds a connection may stay idle (reading a request or between requests).
    var timeout: Double = 60

    /// The folder a large prepared body (from 64 KiB, such as `GET /albums`) is also written to, as an unlinked
    /// file sent with `sendfile` (`FileBody`); nil (`--body-files off`) sends every body from memory. The
    /// default is on a disk's filesystem on Debian (`/tmp` may be a memory one, whose `sendfile` costs more).
    var bodyFiles: String? = "/var/tmp"

    init() {}

    /// One event loop per processor the process may run on (`Processors.available`), within the 1–64 that
    /// `--threads` accepts: fewer leave cores idle under load, more only add switching.
    static let defaultThreads = min(64, max(1, Processors.available))

    /// `--journal-retention`'s default: far more than the 1,024 events a server keeps in memory.
    static let defaultJournalRetention = 100_000

    /// The `Host` check: while listening on a loopback address, only loopback names and `--allowed-hosts`
    /// (a page whose name was re-pointed at 127.0.0.1 must not reach the state); on any other address, every
    /// name unless `--allowed-hosts` is given. Nil accepts every `Host`.
    var hostPolicy: HostPolicy? {
        if let allowedHosts { return allowedHosts }
        return HostPolicy.isLoopback(host) ? HostPolicy() : nil
    }

    /// The bounds the listeners enforce.
    var listenerLimits: ListenerLimits {
        ListenerLimits(maxBodySize: maxBodySize, maxHeadersSize: maxHeadersSize, timeout: timeout)
    }
}
