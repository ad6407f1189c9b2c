import Domain
import Foundation
import Reactive
import Synchronization
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// A store that fails to commit: the routes answer 503 and change nothing.
@Suite struct TodoRoutesStorageFailureTests {
    @Test func aFailedCommitIs503AndTheListStaysAsItWas() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-503-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("todos.sqlite").path
        let harness = try RouteHarness(dataPath: path)
        let before = try harness.send(.get, "/todos").body
        // Another program truncates the file under the running server (which holds it exclusively).
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try file.truncate(atOffset: 0)
        try file.close()

        for (method, target, json) in [
            (HTTPMethod.post, "/todos", #"{"title":"Walk the dog"}"#),
            (.patch, "/todos/1", #"{"completed":true}"#),
            (.delete, "/todos/1", nil),
        ] {
            let response = try harness.send(method, target, json: json)
            #expect(response.status == 503)
            #expect(try ErrorBody(response).error == "storage_error")
        }
        #expect(try harness.send(.get, "/todos").body == before)
    }
}
