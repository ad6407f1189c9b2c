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
    /// The bounds of live queries: how many may be open (`--max-live-queries`), how much history each
    /// collection keeps for `Last-Event-ID`.
    var liveQueries = LiveQueryEngine.Limits()
    /// Allowed CORS origins; nil means CORS is off.
    var cors: CORSPolicy?
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

    /// The bounds the listeners enforce.
    var listenerLimits: ListenerLimits {
        ListenerLimits(maxBodySize: maxBodySize, maxHeadersSize: maxHeadersSize, timeout: timeout)
    }
}
