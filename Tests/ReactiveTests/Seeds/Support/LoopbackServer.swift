import Foundation

/// A real HTTP server on 127.0.0.1 (port 0, read back) serving a temporary directory: Python's `http.server`
/// in a subprocess. The seeds' `URLSession` code talks to it through FoundationNetworking.
///
/// The server ends with this object, and also on its own as soon as the test process is gone (it watches
/// its parent), so a run that crashes or is killed by a timeout leaves no server behind.
final class LoopbackServer {
    let root: URL
    let port: Int
    private let process: Process

    /// Starts a server for `files` (path relative to the root → contents).
    init(files: [String: Data]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("reactive-seed-\(UUID().uuidString)")
        for (path, data) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", Self.script, root.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        port = try LoopbackServer.readPort(from: output.fileHandleForReading)
    }

    /// `http.server` on port 0 that prints "port N" once it listens and exits when its parent (the test
    /// process) does: a parent that dies reparents it, which `getppid` shows within 0.2 s.
    private static let script = """
        import functools, http.server, os, sys, threading, time
        parent = os.getppid()
        def watch():
            while os.getppid() == parent:
                time.sleep(0.2)
            os._exit(0)
        threading.Thread(target=watch, daemon=True).start()
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        print(f"Serving HTTP on 127.0.0.1 port {server.server_address[1]}", flush=True)
        server.serve_forever()
        """

    /// "Serving HTTP on 127.0.0.1 port 41234"
    private static func readPort(from handle: FileHandle) throws -> Int {
        var text = ""
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"port (\d+)"#, options: .regularExpression) {
                let digits = text[range].dropFirst("port ".count)
                if let port = Int(digits) { return port }
            }
        }
        throw CocoaError(.fileReadUnknown)
    }

    var baseURL: String { "http://127.0.0.1:\(port)/" }

    deinit {
        // NB: no waitUntilExit: on Linux it waits on a run loop nobody runs here.
        process.terminate()
        try? FileManager.default.removeItem(at: root)
    }
}

/// Polls `condition` every few milliseconds until it holds or `seconds` pass (no fixed sleeps).
func waitUntil(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(2_000)
    }
    return true
}

/// A value the test thread reads while deliveries write it from another thread.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func mutate(_ body: (inout Value) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body(&stored)
    }
}
