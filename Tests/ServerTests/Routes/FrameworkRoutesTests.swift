import Domain
import Foundation
import Reactive
import Synchronization
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// `/frameworks` through the whole router, in-process.
@Suite struct FrameworkRoutesTests {
    private let harness: RouteHarness
    init() throws { harness = try RouteHarness() }

    @Test func listsTheFrameworksWithTheQueryLanguage() throws {
        #expect(try harness.decode([AppleFramework].self, "/frameworks") == EmbeddedData.frameworks)
        #expect(try harness.decode([AppleFramework].self, "/frameworks?name=Combine").map(\.name) == ["Combine"])
        #expect(
            try harness.decode([AppleFramework].self, "/frameworks?q=augmented").map(\.name) == ["ARKit", "RealityKit"])
        #expect(try harness.send(.get, "/frameworks?id=1").status == 400)
    }

    @Test func selectionIsSentIntoDidSelectAndAnswers202() throws {
        let names = Mutex<[String]>([])
        let subscription = harness.seeds.models.frameworks.didSelect.sink { framework in
            names.withLock { $0.append(framework.name) }
        }
        defer { subscription.cancel() }
        let response = try harness.send(.post, "/frameworks/selection", json: #"{"name":"Combine"}"#)
        #expect(response.status == 202)
        #expect(try response.decoded([String: AppleFramework].self)["selected"]?.name == "Combine")
        let unknown = try harness.send(.post, "/frameworks/selection", json: #"{"name":"Kombine"}"#)
        #expect(unknown.status == 404)
        #expect(try ErrorBody(unknown).error == "not_found")
        #expect(try harness.send(.post, "/frameworks/selection", json: #"{"title":"Combine"}"#).status == 400)
        #expect(names.withLock { $0 } == ["Combine"])
    }
}
