import Foundation
import HTTP
import LibEvent
import Support

/// The `livestate` executable: parses the command line, then serves, prints help, or runs the health check.
package enum LiveStateCommand {
    /// Runs the command and returns the process exit status (0 ok, 1 failure, 2 bad usage).
    package static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let action: CommandLineAction
        do {
            action = try CommandLineOptions.parse(Array(arguments.dropFirst()), environment: environment)
        } catch {
            printError("livestate: \(error.description) (see livestate --help)")
            return 2
        }
        switch action {
        case .help:
            print(CommandLineOptions.usage)
            return 0
        case .version:
            print("livestate \(LiveStateVersion.current)")
            return 0
        case .healthcheck(let host, let port):
            guard let problem = HealthProbe.problem(host: host, port: port) else { return 0 }
            printError("livestate healthcheck: \(problem)")
            return 1
        case .serve(let configuration):
            return serve(configuration)
        }
    }

    private static func serve(_ configuration: Configuration) -> Int32 {
        // NB: before any thread starts, so that every thread inherits it (a thread that did not block a signal
        // could take it and drop it, and the server would not stop).
        ShutdownSignals.blockInEveryThread()
        if configuration.quiet, Log.level < .warning { Log.level = .warning }
        // NB: before any file is opened: a descriptor 0 closed at exec could be taken by one of them.
        _ = SnapshotCommand.inputIsReadable
        let server: LiveStateServer
        do {
            server = try LiveStateServer(configuration: configuration)
        } catch {
            // The one line a failed start prints: nothing was logged before it (LiveStateServer logs
            // only once it serves).
            printError("livestate: cannot start: \(error)")
            return 1
        }
        // NB: signals arrive on a dispatch queue, not in a C handler, so shutdown may take locks.
        let stop = DispatchSemaphore(value: 0)
        let signals = ShutdownSignals.numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                stop.signal()
                DispatchQueue.main.async {}  // wakes the main run loop below
            }
            source.resume()
            return source
        }
        // NB: the main run loop takes descriptors when it is first made and first run (epoll, eventfd,
        // timerfd; the main queue's eventfd), and so does dispatch's first timer. Made here, before the server
        // accepts: once connections hold every descriptor (stage 75 fills the table), Foundation cannot
        // make them and halts the process (SIGILL in `__CFRunLoopCreate`).
        _ = RunLoop.main.run(mode: .default, before: Date())
        DispatchQueue.global().asyncAfter(deadline: .now()) {}
        server.start()
        // Written straight to the descriptor: no stdio buffer holds it back when stdout is a pipe.
        FileHandle.standardOutput.write(Data("listening on \(server.url)\n".utf8))
        server.readSnapshotCommands()
        // The main thread runs the main run loop (which drains the main dispatch queue too), so a view model's
        // `.receive(on: RunLoop.main)` or `DispatchQueue.main` work runs here, on the main thread, as on Apple.
        while stop.wait(timeout: .now()) == .timedOut {
            _ = RunLoop.main.run(mode: .default, before: .distantFuture)
        }
        // A second signal during shutdown exits at once.
        for source in signals {
            source.setEventHandler { exit(1) }
        }
        // NB: the contract gives shutdown 2 s, even while a loop is busy: every wait of `shutdown` ends by
        // `deadline`, and should anything still hold it then, the process exits anyway (every answered
        // write is already committed; SQLite recovers an unclosed file as after kill -9).
        let deadline = DispatchTime.now() + shutdownSeconds
        DispatchQueue.global().asyncAfter(deadline: deadline + 0.15) {
            printError("livestate: shutdown did not finish within \(shutdownSeconds) s; exiting")
            _exit(0)
        }
        server.shutdown(deadline: deadline)
        return 0
    }

    /// How long shutdown may take after SIGINT/SIGTERM, below the contract's 2 s.
    private static let shutdownSeconds = 1.7

    private static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
