import Foundation
import HTTP
import Storage

/// What the command line asks for.
enum CommandLineAction: Equatable {
    /// Serve with this configuration.
    case serve(Configuration)
    /// Print the usage and exit 0.
    case help
    /// Print the version and exit 0.
    case version
    /// Ask a running server's `/healthz` (`livestate healthcheck`).
    case healthcheck(host: String, port: Int)
}

/// A bad flag or value: one line for stderr, exit status 2.
struct CommandLineError: Error, Equatable, CustomStringConvertible {
    /// The line to print (without the program name).
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Parses flags and `LIVESTATE_*` environment variables (a flag wins) into a `CommandLineAction`.
enum CommandLineOptions {
    /// The usage text of `--help`.
    static let usage = """
        Usage: livestate [options] [FILE.json]
               livestate healthcheck [--host HOST] [--port PORT]

        Serves the state of the seed apps' view models over HTTP, with live updates on /events; with a JSON
        file, serves that file's resources json-server style instead, live and durable (docs/own-data.md).

        Options (each also read from the environment variable shown; a flag wins):
          --host HOST        address to listen on (LIVESTATE_HOST, default 127.0.0.1)
          --port PORT        port, 0 takes a free one (LIVESTATE_PORT, default 8080)
          --data PATH|URI    where todos and the journal of changes are kept (LIVESTATE_DATA, default
                             ./livestate.sqlite): a SQLite file path (created if missing), :memory: (SQLite in
                             memory, gone at exit), or a PostgreSQL URI postgres://USER:PASSWORD@HOST:PORT/DB
                             (or postgresql://…; several instances may share one database; with FILE.json,
                             the file fills an empty database once, then the database is the truth and the
                             file is not written back)
          --public DIR       static files served at / (LIVESTATE_PUBLIC, default ./public)
          --upstream URL     jsonplaceholder-compatible base URL for posts and albums
                             (LIVESTATE_UPSTREAM, default: the embedded data set)
          --ca-file PEM      certificate authorities that https downloads trust instead of the system's
                             (LIVESTATE_CA_FILE, default: the system store)
          --token SECRET     require Authorization: Bearer SECRET on mutating requests (LIVESTATE_TOKEN)
          --heartbeat SECS   seconds between keep-alive comments on /events (LIVESTATE_HEARTBEAT, default 15)
          --threads N        event loops serving HTTP (LIVESTATE_THREADS, default: one per processor)
          --cors ORIGINS     web origins that may call from a browser: comma-separated, * for any, null for
                             pages opened from a file, or none to turn CORS off (LIVESTATE_CORS, default:
                             http://localhost, http://127.0.0.1 and http://[::1] on any port); a write from
                             any other page's origin is refused with 403 origin_not_allowed
          --allowed-hosts NAMES
                             comma-separated host names requests may be addressed to besides localhost,
                             127.0.0.1 and [::1] (LIVESTATE_ALLOWED_HOSTS). Listening on loopback, any other
                             Host is refused with 403 host_not_allowed (DNS rebinding); listening on another
                             address, every Host is accepted unless this is given
          --max-todos N      the most todos kept; POST /todos beyond it answers 422 too_many_todos
                             (LIVESTATE_MAX_TODOS, default 10000)
          --journal-retention N
                             the newest changes the events table keeps, for Last-Event-ID resume after a
                             restart and an instance's catch-up (LIVESTATE_JOURNAL_RETENTION, default 100000)
          --max-live-queries N
                             the most live queries (a list GET with Accept: text/event-stream) open at once;
                             more answer 503 too_many_live_queries (LIVESTATE_MAX_LIVE_QUERIES, default 16384)
          --live-query-margin N  the items a live query with _limit or _end holds past its window; it counts
                             the others (LIVESTATE_LIVE_QUERY_MARGIN, default 256)
          --max-streams-per-peer N
                             the most open streams (/events and live queries) of one client address; more
                             answer 429 too_many_streams; 0: no cap (LIVESTATE_MAX_STREAMS_PER_PEER, default 512)
          --body-files DIR   folder where bodies of 64 KiB or more are also kept, as unlinked files sent with
                             sendfile; off sends every body from memory (LIVESTATE_BODY_FILES, default /var/tmp)
          --delay MS         every answer MS milliseconds late (0-60000; not event streams, not /healthz), to
                             see a front end's loading states (LIVESTATE_DELAY, default 0; also -d)
          --quiet            log only warnings and errors, no request lines, as LOG_LEVEL=warning (also -q)
          --no-cors          the same as --cors none (also --nc, --noCors)
          --no-gzip          never gzip a response (also --ng, --noGzip)
        With a data file (FILE.json, or LIVESTATE_FILE; created with an example when missing):
          --id FIELD         the field holding an item's id (LIVESTATE_ID, default id; also -i)
          --foreignKeySuffix SUFFIX
                             the suffix of a field naming a parent (LIVESTATE_FOREIGN_KEY_SUFFIX, default Id;
                             also --fks): postId points into posts, for _embed, _expand, nested routes, and
                             the cascade of a delete
          --read-only        refuse every write with 405 (LIVESTATE_READ_ONLY=1; also --ro)
          --max-file-mb N    the most megabytes the file may grow to as written (1-1024); a write past it
                             answers 507 data_file_full (LIVESTATE_MAX_FILE_MB, default 512)
          --max-checkpoints N
                             the most checkpoints kept (0-10000); one more answers 507
                             too_many_checkpoints (LIVESTATE_MAX_CHECKPOINTS, default 100)
          --data PATH        the journal of the file's changes (default FILE.json.livestate beside it), or
                             :memory: (nothing kept, the file left untouched)
          --config FILE      json-server's options file: a JSON object such as {"port": 3004, "routes":
                             "routes.json"}; a flag wins over it (LIVESTATE_CONFIG; also -c; without it,
                             ./json-server.json is read when it exists and a data file is served)
          --routes FILE      json-server's custom routes: a JSON object of rules such as {"/api/*": "/$1"},
                             each rewriting a request's URL before it is routed; GET /__rules lists them
                             (LIVESTATE_ROUTES; also -r; works without a data file too)
          --snapshots DIR    the folder where typing s + Enter (on a terminal or a pipe as standard input)
                             saves the resources as they are now, as db-<milliseconds>.json
                             (LIVESTATE_SNAPSHOTS, default .; also -S)
          --public DIR       serve DIR at / instead of the built-in page (also --static, -s)
          --watch, -w        accepted for json-server's sake: the file is always watched
        A data file's lists take json-server 0.17's queries and v1's (docs/own-data.md), for example
          /posts?author.name=typicode&_sort=-views&_page=2&_limit=10    /posts?title_like=^json&q=lowdb
          /posts?views:gte=100   /posts?_page=1&_per_page=25 (v1's envelope: first, prev, next, last,
          pages, items, data)   /posts?_where={"or":[{"views":{"gt":100}},{"title":{"contains":"json"}}]}
          /comments?_embed=post   /posts/1?_embed=comments   DELETE /posts/1?_dependent=comments
          ?_delay=MS (at most 10000) delays one answer; a field no item has, _ and callback are ignored.
          -h, --help         print this help and exit
          --version          print the version and exit (also -v)

        The first line on stdout is `listening on http://HOST:PORT`. LOG_LEVEL=debug|info|warning|error|off
        sets the log level (stderr). SIGINT or SIGTERM stops the server cleanly. A server that cannot start
        prints one line to stderr, exits 1 and leaves no file behind; a bad option exits 2.
        `livestate healthcheck` exits 0 only if GET /healthz answers 200; otherwise it says why and exits 1.
        """

    private static let flags: [String: String] = [
        "host": "LIVESTATE_HOST", "port": "LIVESTATE_PORT", "data": "LIVESTATE_DATA",
        "public": "LIVESTATE_PUBLIC", "upstream": "LIVESTATE_UPSTREAM", "ca-file": "LIVESTATE_CA_FILE",
        "token": "LIVESTATE_TOKEN",
        "heartbeat": "LIVESTATE_HEARTBEAT", "threads": "LIVESTATE_THREADS", "cors": "LIVESTATE_CORS",
        "allowed-hosts": "LIVESTATE_ALLOWED_HOSTS",
        "max-todos": "LIVESTATE_MAX_TODOS", "journal-retention": "LIVESTATE_JOURNAL_RETENTION",
        "body-files": "LIVESTATE_BODY_FILES", "max-live-queries": "LIVESTATE_MAX_LIVE_QUERIES",
        "max-streams-per-peer": "LIVESTATE_MAX_STREAMS_PER_PEER",
        "file": "LIVESTATE_FILE", "id": "LIVESTATE_ID", "live-query-margin": "LIVESTATE_LIVE_QUERY_MARGIN",
        "foreignKeySuffix": "LIVESTATE_FOREIGN_KEY_SUFFIX", "read-only": "LIVESTATE_READ_ONLY",
        "delay": "LIVESTATE_DELAY", "max-file-mb": "LIVESTATE_MAX_FILE_MB",
        "max-checkpoints": "LIVESTATE_MAX_CHECKPOINTS", "routes": "LIVESTATE_ROUTES",
        "config": "LIVESTATE_CONFIG", "snapshots": "LIVESTATE_SNAPSHOTS",
    ]

    /// Options that take no value (present means on).
    private static let switches: Set<String> = ["read-only", "watch", "quiet", "no-cors", "no-gzip"]

    /// json-server's flags LiveState does not provide (`JSONServerConfig.unsupported` says why).
    private static let unsupportedFlags: [String: String] = [
        "--middlewares": "middlewares", "-m": "middlewares",
    ]

    /// json-server's spellings, for a user who comes from it.
    private static let aliases: [String: String] = [
        "-p": "port", "-H": "host", "-i": "id", "--fks": "foreignKeySuffix", "--ro": "read-only",
        "--readOnly": "read-only", "-s": "public", "--static": "public", "-w": "watch", "-d": "delay",
        "-q": "quiet", "--nc": "no-cors", "--noCors": "no-cors", "--ng": "no-gzip", "--noGzip": "no-gzip",
        "-r": "routes", "-c": "config", "-S": "snapshots",
    ]

    /// The data file argument; json-server's other sources are refused with what to do instead.
    private static func dataFile(_ argument: String) throws(CommandLineError) -> String {
        let lowered = argument.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            throw CommandLineError(
                "'\(argument)' is a URL: LiveState serves a file it keeps and writes back; save it first"
                    + " (curl -o db.json URL) and give the file")
        }
        if lowered.hasSuffix(".js") || lowered.hasSuffix(".mjs") || lowered.hasSuffix(".cjs") {
            throw CommandLineError(
                "'\(argument)' is JavaScript: LiveState runs none; write the data it makes to a JSON file"
                    + " (node -e 'console.log(JSON.stringify(require(\"./\(argument)\")()))' > db.json)")
        }
        return argument
    }

    /// Parses `arguments` (without the program name) and `environment`.
    static func parse(_ arguments: [String], environment: [String: String]) throws(CommandLineError)
        -> CommandLineAction
    {
        var arguments = arguments[...]
        let healthcheck = arguments.first == "healthcheck"
        if healthcheck { arguments = arguments.dropFirst() }
        let allowed: Set<String> = healthcheck ? ["host", "port"] : Set(flags.keys).union(switches)
        var file: String?

        var given: [String: String] = [:]
        while let argument = arguments.popFirst() {
            if argument == "--help" || argument == "-h" { return .help }
            if argument == "--version" || argument == "-v" { return .version }
            if let reason = JSONServerConfig.unsupported[Self.unsupportedFlags[argument] ?? ""] {
                throw CommandLineError("\(argument): \(reason)")
            }
            var argument = argument
            if let alias = aliases[argument] { argument = "--" + alias }
            guard argument.hasPrefix("--") else {
                guard !healthcheck, !argument.hasPrefix("-"), file == nil else {
                    throw CommandLineError("unexpected argument '\(argument)'")
                }
                file = try Self.dataFile(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard allowed.contains(name) else { throw CommandLineError("unknown option '--\(name)'") }
            if switches.contains(name) {
                guard value == nil || value == "true" || value == "1" else {
                    throw CommandLineError("--\(name) takes no value")
                }
                value = "1"
            }
            if value == nil {
                guard let next = arguments.popFirst() else { throw CommandLineError("--\(name) needs a value") }
                value = next
            }
            given[name] = value
        }
        // json-server's options file: what the command line did not give.
        var fromFile = Set<String>()
        var ignoredOptions: [String] = []
        let configPath =
            given["config"] ?? environment["LIVESTATE_CONFIG"]
            ?? (!healthcheck && (file ?? environment["LIVESTATE_FILE"]) != nil
                && FileManager.default.fileExists(atPath: "json-server.json") ? "json-server.json" : nil)
        if !healthcheck, let configPath {
            let allowed = allowed
            let options = try JSONServerConfig.options(
                at: configPath,
                name: { key in
                    if allowed.contains(key), key != "config" { return key }
                    return aliases["--" + key] ?? aliases["-" + key]
                }, switches: switches)
            let taken = JSONServerConfig.withoutWidening(options.filter { given[$0.key] == nil }, from: configPath)
            for (name, option) in taken.kept {
                given[name] = option
                fromFile.insert(name)
            }
            ignoredOptions = taken.ignored
        }
        func value(_ name: String) -> (String, source: String)? {
            if let flag = given[name] {
                return (flag, fromFile.contains(name) ? "\(configPath ?? "")'s \(name)" : "--\(name)")
            }
            if let variable = flags[name], let env = environment[variable] { return (env, variable) }
            return nil
        }

        var configuration = Configuration()
        configuration.optionsFile = healthcheck ? nil : configPath
        configuration.ignoredOptions = ignoredOptions
        if let (host, source) = value("host") {
            guard !host.isEmpty, !host.contains(where: \.isWhitespace) else {
                throw CommandLineError("\(source): '\(host)' is not a host name or address")
            }
            configuration.host = host
        }
        func integer(_ name: String, in range: ClosedRange<Int>, _ what: String) throws(CommandLineError) -> Int? {
            guard let (text, source) = value(name) else { return nil }
            guard let number = Int(text), range.contains(number) else {
                throw CommandLineError(
                    "\(source): '\(text)' is not \(what) (\(range.lowerBound)-\(range.upperBound))")
            }
            return number
        }
        if let port = try integer("port", in: 0...65535, "a port") { configuration.port = port }
        if healthcheck { return .healthcheck(host: configuration.host, port: configuration.port) }

        if let path = file ?? environment["LIVESTATE_FILE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.dataFile = path
            configuration.dataPath = path + ".livestate"
        }
        if let (path, source) = value("data") {
            guard !path.isEmpty else { throw CommandLineError("\(source): the data path is empty") }
            configuration.dataPath = path
        }
        if let (field, source) = value("id") {
            guard !field.isEmpty, !field.contains(".") else {
                throw CommandLineError("\(source): '\(field)' is not a field name")
            }
            configuration.idField = field
        }
        if let (suffix, source) = value("foreignKeySuffix") {
            guard !suffix.isEmpty else { throw CommandLineError("\(source): the suffix is empty") }
            configuration.foreignKeySuffix = suffix
        }
        if let (flag, source) = value("read-only") {
            switch flag.lowercased() {
            case "1", "true", "yes": configuration.readOnly = true
            case "0", "false", "no", "": configuration.readOnly = false
            default: throw CommandLineError("\(source): '\(flag)' is not 1 or 0")
            }
        }
        if let (path, source) = value("public") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandLineError("\(source): '\(path)' is not a directory")
            }
            configuration.publicPath = path
            configuration.publicGiven = true
        }
        if let (text, source) = value("upstream") {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https",
                let host = url.host, !host.isEmpty
            else { throw CommandLineError("\(source): '\(text)' is not an http(s) URL") }
            configuration.upstream = url
        }
        if let (path, source) = value("ca-file") {
            // NB: only that it is a readable file; whether it holds certificates is known when TLS is set up
            // (a failed start, one line naming the file).
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw CommandLineError("\(source): '\(path)' is not a readable file")
            }
            configuration.caFile = path
        }
        if let (token, source) = value("token") {
            guard !token.isEmpty, token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw CommandLineError("\(source): the token must be non-empty printable ASCII without spaces")
            }
            configuration.token = token
        }
        if let (text, source) = value("heartbeat") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw CommandLineError("\(source): '\(text)' is not a number of seconds (0 < s <= 3600)")
            }
            configuration.heartbeat = seconds
        }
        if let threads = try integer("threads", in: 1...64, "a thread count") { configuration.threads = threads }
        if let maxTodos = try integer("max-todos", in: 1...1_000_000, "a number of todos") {
            configuration.maxTodos = maxTodos
        }
        if let retention = try integer("journal-retention", in: 1...100_000_000, "a number of changes") {
            configuration.journalRetention = retention
        }
        if let maxLive = try integer("max-live-queries", in: 1...1_000_000, "a number of live queries") {
            configuration.liveQueries.maxQueries = maxLive
        }
        if let margin = try integer("live-query-margin", in: 0...1_000_000, "a number of items") {
            configuration.liveQueries.windowMargin = margin
        }
        if let perPeer = try integer("max-streams-per-peer", in: 0...1_000_000, "a number of streams") {
            configuration.maxStreamsPerPeer = perPeer
        }
        if let (path, source) = value("body-files") {
            if path == "off" {
                configuration.bodyFiles = nil
            } else {
                guard LiveStateServer.isWritableFolder(path) else {
                    throw CommandLineError("\(source): '\(path)' is not a writable directory (or off)")
                }
                configuration.bodyFiles = path
            }
        }
        if let megabytes = try integer("max-file-mb", in: 1...1024, "a number of megabytes") {
            configuration.maxFileSize = megabytes << 20
        }
        if let count = try integer("max-checkpoints", in: 0...10_000, "a number of checkpoints") {
            configuration.maxCheckpoints = count
        }
        if let (path, source) = value("routes") {
            // NB: read and compiled at start (`RoutesFile`), where a rule that cannot be used is named.
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw CommandLineError("\(source): '\(path)' is not a readable file")
            }
            configuration.routesFile = path
        }
        if let (path, source) = value("snapshots") {
            guard LiveStateServer.isWritableFolder(path) else {
                throw CommandLineError("\(source): '\(path)' is not a writable directory")
            }
            configuration.snapshotsFolder = path
        }
        if let milliseconds = try integer("delay", in: 0...60_000, "a number of milliseconds") {
            configuration.delay = Double(milliseconds) / 1000
        }
        configuration.quiet = given["quiet"] != nil
        configuration.gzip = given["no-gzip"] == nil
        if given["no-cors"] != nil {
            guard given["cors"] == nil else { throw CommandLineError("--no-cors and --cors contradict each other") }
            configuration.cors = nil
        }
        if let (text, source) = value("cors"), given["no-cors"] == nil {
            if text == "none" {
                configuration.cors = nil
            } else {
                guard let policy = CORSPolicy(parsing: text) else {
                    throw CommandLineError(
                        "\(source): '\(text)' is not '*', 'none' or a comma-separated list of http(s) origins and null")
                }
                configuration.cors = policy
            }
        }
        if let (text, source) = value("allowed-hosts") {
            guard let policy = HostPolicy(parsing: text) else {
                throw CommandLineError("\(source): '\(text)' is not a comma-separated list of host names")
            }
            configuration.allowedHosts = policy
        }
        return .serve(configuration)
    }
}
