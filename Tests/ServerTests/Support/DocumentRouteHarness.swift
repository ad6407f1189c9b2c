import Foundation
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// The whole router of a fresh `App` serving a data file (`livestate db.json`) in a folder of its own, its
/// journal the SQLite file beside it, driven in-process with `Request` values. `close()` stops the app and
/// removes the folder.
final class DocumentRouteHarness {
    let folder: URL
    /// The data file.
    let path: String
    /// Its journal (`db.json.livestate`).
    var journal: String { path + ".livestate" }
    let app: App
    let site: DataFileSite
    let router: Router

    /// Writes `json` to a new data file and serves it.
    init(json: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-documents-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("db.json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        var configuration = Configuration()
        configuration.port = 0
        configuration.dataFile = path
        configuration.dataPath = path + ".livestate"
        configuration.publicPath = nil
        app = try App(configuration: configuration)
        site = try #require(app.site as? DataFileSite)
        router = buildRouter(app)
    }

    /// Stops the app (its journal and the file's write-back) and removes the folder.
    func close() {
        app.runShutdownActions()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Routes one request and returns its response, once the write it makes is committed.
    func send(_ method: HTTPMethod, _ target: String, json: String? = nil, headers: HTTPHeaders = [:]) throws
        -> Response
    {
        try router.send(method, target, json: json, headers: headers)
    }
}
