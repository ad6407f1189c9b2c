import Foundation
import HTTP
import Support

/// json-server's snapshot command: a line `s` typed on standard input (case and spaces aside) saves a data
/// file's resources as they are now into `--snapshots` (`DataFileService.saveSnapshot`); other lines are
/// ignored.
///
/// Standard input is read only when, at start, it is a terminal or a pipe: a server started with
/// `< /dev/null`, under a supervisor, or with its descriptor 0 closed (which a file the server opens may
/// then take) reads nothing. On a terminal the reading never ends: a background job's read fails (SIGTTIN is
/// ignored, so the process is not stopped by it) and an end of input (Ctrl-D) is no end of the session, so
/// either is tried again a second later; on a pipe, the end of input ends the reading.
///
/// The lines are read on a thread of their own, which blocks in `read` and holds at most 64 bytes of a line:
/// what is typed costs no loop anything, whatever its length.
final class SnapshotCommand: Sendable {
    /// Where the snapshots go.
    let folder: String
    private let save: @Sendable (String) throws -> String

    /// Reads commands for `save(folder)`, which answers the path written; call `start()` to begin.
    init(folder: String, save: @escaping @Sendable (String) throws -> String) {
        self.folder = folder
        self.save = save
    }

    /// Whether standard input is a terminal or a pipe (what descriptor 0 names: `/dev/pts/N`, `pipe:[N]`);
    /// asked before the server opens any file.
    static let inputIsReadable: Bool = {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/0") else {
            return false
        }
        return isatty(0) == 1 || target.hasPrefix("pipe:")
    }()

    /// Starts reading standard input, if it is readable (`inputIsReadable`); answers whether it does.
    @discardableResult
    func start() -> Bool {
        guard Self.inputIsReadable else { return false }
        let terminal = isatty(0) == 1
        // NB: a background job's read from its terminal would stop the whole process (SIGTTIN's default).
        if terminal { signal(SIGTTIN, SIG_IGN) }
        let thread = Thread { [self] in
            ThreadName.setCurrent("livestate-stdin")
            read(terminal: terminal)
        }
        thread.name = "livestate-stdin"
        thread.start()
        return true
    }

    /// The longest line kept; a longer one is no command.
    static let maxLine = 64

    /// Whether `line` (without its newline) is the snapshot command.
    static func isSnapshot(_ line: some Collection<UInt8>) -> Bool {
        String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == "s"
    }

    private func read(terminal: Bool) {
        let input = FileHandle.standardInput
        var line: [UInt8] = []
        var overlong = false
        while true {
            // NB: a byte at a time: `read(upToCount:)` returns only once it has the whole count, and
            // `availableData` stops the process on a read error (a background job's EIO). A command is two
            // bytes; a flood of input costs this thread alone.
            let chunk: Data?
            do {
                chunk = try input.read(upToCount: 1)
            } catch {
                chunk = nil
            }
            guard let chunk, !chunk.isEmpty else {
                guard terminal else { return }
                Thread.sleep(forTimeInterval: 1)
                continue
            }
            for byte in chunk {
                guard byte == UInt8(ascii: "\n") else {
                    if line.count < Self.maxLine { line.append(byte) } else { overlong = true }
                    continue
                }
                if !overlong, Self.isSnapshot(line) { snapshot() }
                line.removeAll(keepingCapacity: true)
                overlong = false
            }
        }
    }

    private func snapshot() {
        do {
            let path = try save(folder)
            Log.info("saved a snapshot to \(Self.relative(path))")
        } catch {
            Log.error("no snapshot saved in \(folder): \(error)")
        }
    }

    /// `path` from the working folder when it is inside it, as json-server names it.
    static func relative(_ path: String) -> String {
        let here = FileManager.default.currentDirectoryPath
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        if absolute == here { return "." }
        guard absolute.hasPrefix(here + "/") else { return absolute }
        return String(absolute.dropFirst(here.count + 1))
    }
}
