import Foundation
import Testing

@testable import HTTP
@testable import Server

/// Flags and `LIVESTATE_*` variables into a `Configuration`; a flag wins, bad values are one-line errors.
@Suite struct CommandLineOptionsTests {
    private func configuration(_ arguments: [String], _ environment: [String: String] = [:]) throws -> Configuration {
        guard case .serve(let configuration) = try CommandLineOptions.parse(arguments, environment: environment) else {
            throw CommandLineError("not a serve action")
        }
        return configuration
    }

    @Test func theAffinityMaskCountsTheAllowedProcessors() {
        #expect(Processors.allowed(inStatus: "Name:\tlivestate\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n") == 2)
        #expect(Processors.allowed(inStatus: "Cpus_allowed:\tff,00000001\n") == 9)
        #expect(Processors.allowed(inStatus: "Cpus_allowed:\tzz\n") == nil)
        #expect(Processors.allowed(inStatus: "Name:\tx\n") == nil)
    }

    @Test func defaultsFollowTheContract() throws {
        let defaults = try configuration([])
        #expect(defaults.host == "127.0.0.1")
        #expect(defaults.port == 8080)
        #expect(defaults.dataPath == "./livestate.sqlite")
        #expect(defaults.heartbeat == 15)
        #expect(defaults.threads == min(64, Processors.available))
        #expect(defaults.cors == .loopback)
        #expect(defaults.allowedHosts == nil)
        #expect(defaults.hostPolicy == HostPolicy())
        #expect(defaults.token == nil)
        #expect(defaults.upstream == nil)
        #expect(defaults.maxTodos == 10_000)
        #expect(defaults.caFile == nil)
        #expect(defaults.bodyFiles == "/var/tmp")
    }

    @Test func everyFlagIsRead() throws {
        let folder = FileManager.default.temporaryDirectory.path
        let parsed = try configuration([
            "--host", "0.0.0.0", "--port=0", "--data", ":memory:", "--public", folder, "--upstream",
            "https://jsonplaceholder.typicode.com", "--token", "t0k", "--heartbeat", "0.5", "--threads", "4",
            "--cors", "*", "--max-todos", "25", "--ca-file", #filePath, "--journal-retention", "40",
            "--body-files", folder, "--allowed-hosts", "box.example",
        ])
        #expect(parsed.hostPolicy == HostPolicy(allowedNames: ["box.example"]))
        #expect(parsed.bodyFiles == folder)
        #expect(parsed.maxTodos == 25)
        #expect(parsed.journalRetention == 40)
        #expect(parsed.host == "0.0.0.0")
        #expect(parsed.port == 0)
        #expect(parsed.dataPath == ":memory:")
        #expect(parsed.publicPath == folder)
        #expect(parsed.upstream?.absoluteString == "https://jsonplaceholder.typicode.com")
        #expect(parsed.token == "t0k")
        #expect(parsed.heartbeat == 0.5)
        #expect(parsed.threads == 4)
        #expect(parsed.cors == CORSPolicy(origins: .any))
        #expect(parsed.caFile == #filePath)
    }

    @Test func environmentIsReadAndAFlagWins() throws {
        let environment = [
            "LIVESTATE_PORT": "9000", "LIVESTATE_THREADS": "2", "LIVESTATE_CORS": "http://a.test",
            "LIVESTATE_MAX_TODOS": "7", "LIVESTATE_JOURNAL_RETENTION": "12", "LIVESTATE_BODY_FILES": "off",
        ]
        let fromEnvironment = try configuration([], environment)
        #expect(fromEnvironment.maxTodos == 7)
        #expect(fromEnvironment.journalRetention == 12)
        #expect(fromEnvironment.bodyFiles == nil)
        #expect(fromEnvironment.port == 9000)
        #expect(fromEnvironment.threads == 2)
        #expect(fromEnvironment.cors == CORSPolicy(origins: .list(["http://a.test"])))
        #expect(try configuration(["--port", "9001"], environment).port == 9001)
    }

    @Test func corsNoneTurnsCORSOffAndEveryAddressButLoopbackChecksNoHost() throws {
        #expect(try configuration(["--cors", "none"]).cors == nil)
        #expect(try configuration(["--host", "0.0.0.0"]).hostPolicy == nil)
        #expect(try configuration(["--host", "::1"]).hostPolicy == HostPolicy())
        let allowed = try configuration([], ["LIVESTATE_ALLOWED_HOSTS": "a.example,b.example"])
        #expect(allowed.hostPolicy == HostPolicy(allowedNames: ["a.example", "b.example"]))
    }

    @Test func helpWinsOverEverythingElse() throws {
        #expect(try CommandLineOptions.parse(["--port", "1", "--help"], environment: [:]) == .help)
        #expect(try CommandLineOptions.parse(["-h"], environment: [:]) == .help)
    }

    @Test func healthcheckReadsHostAndPort() throws {
        #expect(
            try CommandLineOptions.parse(["healthcheck", "--port", "9"], environment: ["LIVESTATE_HOST": "::1"])
                == .healthcheck(host: "::1", port: 9))
        #expect(throws: CommandLineError.self) {
            try CommandLineOptions.parse(["healthcheck", "--token", "x"], environment: [:])
        }
    }

    @Test(arguments: [
        (["--port", "-1"], "--port"), (["--port", "x"], "--port"), (["--threads", "100"], "--threads"),
        (["--heartbeat", "0"], "--heartbeat"), (["--upstream", "file:///etc"], "--upstream"),
        (["--upstream", "http://"], "--upstream"), (["--cors", ""], "--cors"),
        (["--allowed-hosts", " "], "--allowed-hosts"), (["--token", ""], "--token"),
        (["--nope"], "--nope"), (["--max-todos", "0"], "--max-todos"), (["--max-todos", "x"], "--max-todos"),
        (["--journal-retention", "0"], "--journal-retention"), (["a.json", "stray"], "stray"), (["--data"], "--data"),
        (["--read-only=2"], "--read-only"),
        (["-p", "x"], "--port"), (["--id", "a.b"], "--id"),
        (["--ca-file", "/nonexistent/ca.pem"], "--ca-file"), (["--body-files", "/nonexistent"], "--body-files"),
        (["--body-files", #filePath], "--body-files"),
        (["--delay", "60001"], "--delay"), (["-d", "-5"], "--delay"), (["--quiet=loud"], "--quiet"),
        (["--no-cors", "--cors", "*"], "--no-cors"), (["-r", "/nonexistent/routes.json"], "--routes"),
        (["https://example.com/db.json"], "is a URL"), (["generate.js"], "is JavaScript"),
    ])
    func badValuesNameTheFlag(arguments: [String], flag: String) {
        do {
            _ = try CommandLineOptions.parse(arguments, environment: [:])
            Issue.record("\(arguments) was accepted")
        } catch {
            #expect(error.description.contains(flag))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func badEnvironmentValuesNameTheVariable() {
        #expect(throws: CommandLineError("LIVESTATE_HEARTBEAT: 'soon' is not a number of seconds (0 < s <= 3600)")) {
            try CommandLineOptions.parse([], environment: ["LIVESTATE_HEARTBEAT": "soon"])
        }
    }
}

@Suite struct DataFileOptionsTests {
    @Test func theOneArgumentIsTheDataFileWithItsJournalBesideIt() throws {
        guard case .serve(let configuration) = try CommandLineOptions.parse(["db.json"], environment: [:]) else {
            Issue.record("not a serve action")
            return
        }
        #expect(configuration.dataFile == "db.json")
        #expect(configuration.dataPath == "db.json.livestate")
    }

    @Test func aDataFileMayFillAPostgreSQLDatabase() throws {
        let arguments = ["db.json", "--data", "postgres://u@h/d"]
        guard case .serve(let configuration) = try CommandLineOptions.parse(arguments, environment: [:]) else {
            Issue.record("not a serve action")
            return
        }
        #expect(configuration.dataFile == "db.json")
        #expect(configuration.dataPath == "postgres://u@h/d")
    }

    @Test func jsonServersSpellingsWork() throws {
        let arguments = ["db.json", "-p", "3000", "--watch", "--ro", "-i", "_id", "--fks", "_id", "--data", ":memory:"]
        guard case .serve(let configuration) = try CommandLineOptions.parse(arguments, environment: [:]) else {
            Issue.record("not a serve action")
            return
        }
        #expect(configuration.port == 3000)
        #expect(configuration.readOnly)
        #expect(configuration.idField == "_id")
        #expect(configuration.foreignKeySuffix == "_id")
        #expect(configuration.dataPath == ":memory:")
    }

    @Test func jsonServersRoutesFile() throws {
        guard case .serve(let configuration) = try CommandLineOptions.parse(["-r", #filePath], environment: [:]) else {
            Issue.record("not a serve action")
            return
        }
        #expect(configuration.routesFile == #filePath)
        let variable = try CommandLineOptions.parse([], environment: ["LIVESTATE_ROUTES": #filePath])
        guard case .serve(let fromEnvironment) = variable else {
            Issue.record("not a serve action")
            return
        }
        #expect(fromEnvironment.routesFile == #filePath)
    }

    /// `--max-streams-per-peer`: 512 by default, 0 turns the cap off, and its variable.
    @Test func maxStreamsPerPeer() throws {
        func parsed(_ flags: [String], _ environment: [String: String] = [:]) throws -> Int? {
            guard case .serve(let configuration) = try CommandLineOptions.parse(flags, environment: environment)
            else { return nil }
            return configuration.maxStreamsPerPeer
        }
        #expect(try parsed([]) == 512)
        #expect(try parsed(["--max-streams-per-peer", "0"]) == 0)
        #expect(try parsed([], ["LIVESTATE_MAX_STREAMS_PER_PEER": "8"]) == 8)
        #expect(throws: CommandLineError.self) { try parsed(["--max-streams-per-peer", "-1"]) }
    }

    /// `--live-query-margin`: 256 by default, its variable, and no negative count.
    @Test func liveQueryMargin() throws {
        func parsed(_ flags: [String], _ environment: [String: String] = [:]) throws -> Int? {
            guard case .serve(let configuration) = try CommandLineOptions.parse(flags, environment: environment)
            else { return nil }
            return configuration.liveQueries.windowMargin
        }
        #expect(try parsed([]) == 256)
        #expect(try parsed(["--live-query-margin", "0"]) == 0)
        #expect(try parsed([], ["LIVESTATE_LIVE_QUERY_MARGIN": "8"]) == 8)
        #expect(throws: CommandLineError.self) { try parsed(["--live-query-margin", "-1"]) }
    }

    /// An options file never widens exposure: a non-loopback host, a static folder outside its folder,
    /// allowed hosts and CORS origins are left out, one line each; a flag still gives them.
    @Test func optionsFileNeverWidensExposure() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("js-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("json-server.json").path
        let inside = folder.appendingPathComponent("site").path
        try FileManager.default.createDirectory(atPath: inside, withIntermediateDirectories: true)
        func parse(_ text: String, _ flags: [String] = []) throws -> Configuration {
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            guard case .serve(let configuration) = try CommandLineOptions.parse(["-c", path] + flags, environment: [:])
            else { throw CommandLineError("not a serve action") }
            return configuration
        }
        let wide = try parse(#"{"host": "0.0.0.0", "static": "/", "allowed-hosts": "a.example", "cors": "*"}"#)
        #expect(wide.host == "127.0.0.1" && !wide.publicGiven && wide.allowedHosts == nil && wide.cors == .loopback)
        #expect(wide.ignoredOptions.count == 4)
        #expect(wide.ignoredOptions.allSatisfy { $0.hasPrefix(path) && $0.contains("ignored") })
        let narrow = try parse(#"{"host": "localhost", "static": "\#(inside)", "cors": "none"}"#)
        #expect(narrow.host == "localhost" && narrow.publicPath == inside && narrow.cors == nil)
        #expect(narrow.ignoredOptions.isEmpty)
        let flagged = try parse(#"{"host": "0.0.0.0"}"#, ["--host", "0.0.0.0", "-s", "/"])
        #expect(flagged.host == "0.0.0.0" && flagged.publicPath == "/" && flagged.ignoredOptions.isEmpty)
    }

    /// json-server's options file: its options by long or short name, a flag winning over it and it over the
    /// environment; what it cannot take is named in one line.
    @Test func jsonServersOptionsFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("js-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        func write(_ text: String) { FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) }
        let folder = FileManager.default.temporaryDirectory.path
        write(
            #"{"port": 3004, "ro": true, "d": 20, "noGzip": true, "quiet": false, "S": "\#(folder)", "id": null}"#)
        let environment = ["LIVESTATE_DELAY": "500", "LIVESTATE_PORT": "9"]
        guard
            case .serve(let configuration) = try CommandLineOptions.parse(
                ["-c", path, "db.json"], environment: environment)
        else {
            Issue.record("not a serve action")
            return
        }
        #expect(configuration.port == 3004 && configuration.readOnly && configuration.delay == 0.02)
        #expect(!configuration.gzip && !configuration.quiet && configuration.idField == "id")
        #expect(configuration.optionsFile == path && configuration.snapshotsFolder == folder)
        guard case .serve(let flagged) = try CommandLineOptions.parse(["--config", path, "-p", "7"], environment: [:])
        else {
            Issue.record("not a serve action")
            return
        }
        #expect(flagged.port == 7 && flagged.readOnly)
        for (text, words) in [
            (#"{"portt": 1}"#, "'portt' is not an option"), (#"{"port": true}"#, "'port' takes a value"),
            (#"{"middlewares": ["a.js"]}"#, "no JavaScript"), (#"{"port": "x"}"#, "'s port: 'x' is not a port"),
            ("[1]", "not a JSON object"), (#"{"routes": ["a"]}"#, "'routes' must be"),
        ] {
            write(text)
            #expect(throws: CommandLineError.self, "\(text)") {
                try CommandLineOptions.parse(["-c", path], environment: [:])
            }
            do {
                _ = try CommandLineOptions.parse(["-c", path], environment: [:])
            } catch {
                #expect(error.description.contains(words), "\(error.description)")
            }
        }
        #expect(throws: CommandLineError.self) {
            try CommandLineOptions.parse(["-c", path + ".missing"], environment: [:])
        }
        for flag in ["-m", "--middlewares"] {
            #expect(throws: CommandLineError("\(flag): \(JSONServerConfig.unsupported["middlewares"] ?? "")")) {
                try CommandLineOptions.parse([flag, "x", "db.json"], environment: [:])
            }
        }
        #expect(throws: CommandLineError("--snapshots: '/nonexistent-folder' is not a writable directory")) {
            try CommandLineOptions.parse(["-S", "/nonexistent-folder", "db.json"], environment: [:])
        }
        guard
            case .serve(let snapshots) = try CommandLineOptions.parse(
                ["db.json"], environment: ["LIVESTATE_SNAPSHOTS": folder])
        else {
            Issue.record("not a serve action")
            return
        }
        #expect(snapshots.snapshotsFolder == folder)
        #expect(try CommandLineOptions.parse(["-v"], environment: [:]) == .version)
    }

    @Test func jsonServersDelayQuietAndNoCORS() throws {
        let arguments = ["db.json", "-d", "250", "-q", "--nc"]
        guard case .serve(let configuration) = try CommandLineOptions.parse(arguments, environment: [:]) else {
            Issue.record("not a serve action")
            return
        }
        #expect(configuration.delay == 0.25)
        #expect(configuration.quiet)
        #expect(configuration.cors == nil)
        #expect(configuration.gzip)
        guard case .serve(let camel) = try CommandLineOptions.parse(["--noCors", "--noGzip"], environment: [:]) else {
            Issue.record("not a serve action")
            return
        }
        #expect(camel.cors == nil && !camel.gzip)
        guard case .serve(let plain) = try CommandLineOptions.parse([], environment: ["LIVESTATE_DELAY": "40"]) else {
            Issue.record("not a serve action")
            return
        }
        #expect(plain.delay == 0.04)
        #expect(!plain.quiet)
        #expect(plain.cors != nil, "CORS stays on for loopback origins unless turned off")
    }

    @Test func theEnvironmentNamesTheFileToo() throws {
        let action = try CommandLineOptions.parse(
            [], environment: ["LIVESTATE_FILE": "x.json", "LIVESTATE_READ_ONLY": "1"])
        guard case .serve(let configuration) = action else {
            Issue.record("not a serve action")
            return
        }
        #expect(configuration.dataFile == "x.json")
        #expect(configuration.readOnly)
    }
}
