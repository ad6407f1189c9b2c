import Foundation

/// A real HTTP server on 127.0.0.1 (port 0, read back) serving a temporary directory: Python's `http.server`
/// in a subprocess. The seeds' `URLSession` code talks to it through FoundationNetworking.
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
        process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        port = try LoopbackServer.readPort(from: output.fileHandleForReading)
    }

    /// "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
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
