import Dispatch
import Foundation
import StrictJSON

@testable import HTTP
@testable import Server

/// One fuzz input run through the server's parsing entry points, with the contract as the oracle.
///
/// Input layout: byte 0 picks the method; the bytes up to the first newline are the request target
/// (path and query, as evhttp hands it over); the rest is the body, sent as `application/json`.
/// Checked: nothing traps; a routed request never answers 500; a body StrictJSON accepts is JSON to Foundation.
/// An input that starts with an upper-case letter is a whole raw request instead (`RawRequestFuzz`).
enum FuzzTarget {
    /// A router over the real service on an in-memory store, built once.
    private static let service: HTTPService? = {
        var configuration = Configuration()
        configuration.port = 0
        configuration.dataPath = ":memory:"
        configuration.publicPath = nil
        guard let app = try? App(configuration: configuration) else { return nil }
        return HTTPService(router: buildRouter(app))
    }()

    static func run(_ bytes: [UInt8]) {
        if RawRequestFuzz.accepts(bytes) { return RawRequestFuzz.run(bytes) }
        guard let first = bytes.first else { return }
        let methods = HTTPMethod.allCases
        let method = methods[Int(first) % methods.count]
        let rest = bytes.dropFirst()
        let newline = rest.firstIndex(of: 0x0A) ?? rest.endIndex
        let target = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
        let body = newline < rest.endIndex ? Array(rest[(newline + 1)...]) : []
        let request = Request(method, target, headers: ["Content-Type": "application/json"], body: body)

        // Path and query: the decoders and the router's segment split must not trap.
        _ = Router.segments(of: request.rawPath)
        for (name, value) in request.query { _ = name.count + value.count }
        _ = request.query.names

        // JSON: what the strict parser accepts, Foundation's lenient one accepts too (a differential check;
        // shallow bodies only, as Foundation has a depth limit of its own).
        if (try? JSONValue(parsing: body, maxDepth: 64)) != nil {
            let lenient = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
            precondition(lenient != nil, "StrictJSON accepted what JSONSerialization refuses")
        }

        route(request, target: target)
    }

    /// The routes themselves, except those that reach the network or run timers.
    static func route(_ request: Request, target: String) {
        let method = request.method
        guard let service, routable(method, request.path) else { return }
        switch service.respond(to: request) {
        case .response(let response):
            check(response, method, target)
        case .later(let start):
            let done = DispatchSemaphore(value: 0)
            start { response in
                check(response, method, target)
                done.signal()
            }
            _ = done.wait(timeout: .now() + 5)
        case .stream:
            break
        }
    }

    private static func check(_ response: Response, _ method: HTTPMethod, _ target: String) {
        precondition(response.status != 500, "500 for \(method.rawValue) \(target.debugDescription)")
        precondition(response.status >= 200 && response.status < 600)
    }

    /// GET and HEAD anywhere, and todo mutations; not downloads, refreshes or debounced searches.
    private static func routable(_ method: HTTPMethod, _ path: String) -> Bool {
        switch method {
        case .get, .head, .options: return true
        case .post, .patch, .delete: return path.hasPrefix("/todos")
        case .put: return false
        }
    }
}

/// The entry point: with `-DLIVESTATE_FUZZ` (and `-sanitize=fuzzer`, scripts/test.d/80-fuzz) it hands over
/// to libFuzzer's driver, which takes libFuzzer's flags and corpus folders; otherwise it replays files or
/// folders (the corpus, the crash regressions) through the same target, as a plain regression run.
@main
struct LiveStateFuzzMain {
    static func main() throws {
        #if LIVESTATE_FUZZ
            // NB: SwiftPM links executables with `main` defined as this module's entry point, so libFuzzer's own
            // `main` is not used; its documented `LLVMFuzzerRunDriver` is called instead.
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
        #else
            var count = 0
            for argument in CommandLine.arguments.dropFirst() {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                    FileHandle.standardError.write(Data("no such file: \(argument)\n".utf8))
                    exit(2)
                }
                let files =
                    isFolder.boolValue
                    ? try FileManager.default.contentsOfDirectory(atPath: argument).sorted().map { "\(argument)/\($0)" }
                    : [argument]
                for file in files {
                    FuzzTarget.run(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
                    count += 1
                }
            }
            print("replayed \(count) inputs, no failure")
        #endif
    }
}

/// libFuzzer's per-input callback (also exported under its conventional name, which libFuzzer's archive
/// refers to).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    FuzzTarget.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if LIVESTATE_FUZZ
    /// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb)(const uint8_t *, size_t))` from libFuzzer.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif
