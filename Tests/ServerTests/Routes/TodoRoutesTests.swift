import Domain
import Foundation
import Reactive
import Synchronization
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// `/todos` through the whole router, in-process.
@Suite struct TodoRoutesTests {
    private let harness: RouteHarness
    init() throws { harness = try RouteHarness() }

    @Test func freshStoreListsBuyMilkWithJSONHeaders() throws {
        let response = try harness.send(.get, "/todos")
        #expect(response.status == 200)
        #expect(try JSONDecoder().decode([Todo].self, from: Data(response.body)) == [Todo(id: 1, title: "Buy Milk")])
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.headers["X-Total-Count"] == "1")
    }

    @Test func postKeepsTheTrimmedTitleAnswers201WithLocationAndTheListFollows() throws {
        let created = try harness.send(.post, "/todos", json: #"{"title":"  Walk the dog "}"#)
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "/todos/2")
        #expect(try created.decoded(Todo.self) == Todo(id: 2, title: "Walk the dog", completed: false))
        #expect(try harness.decode([Todo].self, "/todos").map(\.title) == ["Buy Milk", "Walk the dog"])
        #expect(try harness.decode(Todo.self, "/todos/2").title == "Walk the dog")
        #expect(try harness.send(.get, "/todos").headers["X-Total-Count"] == "2")
    }

    private static let refusedTitles: [(String, Int, String)] = [
        (#"{"title":"abc"}"#, 422, "title_too_short"),
        (#"{"title":"   ab "}"#, 422, "title_too_short"),
        (#"{"title":"\#(String(repeating: "x", count: 501))"}"#, 422, "title_too_long"),
        (#"{"title":5}"#, 400, "invalid_field"),
        (#"{"name":"Walk the dog"}"#, 400, "unknown_field"),
        (#"{"completed":true}"#, 400, "missing_field"),
        (#"{"title":"Walk the dog""#, 400, "invalid_json"),
        (#"{"title":"a title",}"#, 400, "invalid_json"),
        (#"{"title":"Walk the dog","title":"Feed the cat"}"#, 400, "invalid_json"),
        (#"{"title":"Walk the dog","completed":"yes"}"#, 400, "invalid_field"),
        ("[]", 400, "invalid_json"),
        (#"{"title":"Walk\u0000the dog"}"#, 422, "title_invalid"),
        (#"{"title":"Walk\u001bthe dog"}"#, 422, "title_invalid"),
    ]

    @Test(arguments: refusedTitles)
    func postRefusesWithTheContractsError(_ body: String, status: Int, code: String) throws {
        let response = try harness.send(.post, "/todos", json: body)
        #expect(response.status == status)
        #expect(try ErrorBody(response).error == code)
        #expect(try harness.decode([Todo].self, "/todos").count == 1)
    }

    @Test func postBeyondTheTodoLimitIs422TooManyTodosAndChangesNothing() throws {
        let harness = try RouteHarness(maxTodos: 2)
        #expect(try harness.send(.post, "/todos", json: #"{"title":"Walk the dog"}"#).status == 201)
        let refused = try harness.send(.post, "/todos", json: #"{"title":"Feed the cat"}"#)
        #expect(refused.status == 422)
        #expect(try ErrorBody(refused).error == "too_many_todos")
        #expect(try ErrorBody(refused).message.contains("2 todos"))
        #expect(try harness.decode([Todo].self, "/todos").map(\.title) == ["Buy Milk", "Walk the dog"])
        #expect(try harness.send(.patch, "/todos/2", json: #"{"completed":true}"#).status == 200)
    }

    @Test func postWithoutJSONContentTypeIs415() throws {
        let response = try harness.send(
            .post, "/todos", json: #"{"title":"Walk the dog"}"#, headers: ["Content-Type": "text/plain"])
        #expect(response.status == 415)
    }

    @Test func patchChangesCompletionAndTitleWithTheSameRules() throws {
        let done = try harness.send(.patch, "/todos/1", json: #"{"completed":true}"#)
        #expect(done.status == 200)
        #expect(try done.decoded(Todo.self) == Todo(id: 1, title: "Buy Milk", completed: true))
        let renamed = try harness.send(.patch, "/todos/1", json: #"{"title":" Buy oat milk "}"#)
        #expect(try renamed.decoded(Todo.self) == Todo(id: 1, title: "Buy oat milk", completed: true))
        let short = try harness.send(.patch, "/todos/1", json: #"{"title":"ab"}"#)
        #expect(short.status == 422)
        #expect(try ErrorBody(short).error == "title_too_short")
        #expect(try harness.send(.patch, "/todos/1", json: #"{"completed":"yes"}"#).status == 400)
        #expect(try harness.decode(Todo.self, "/todos/1") == Todo(id: 1, title: "Buy oat milk", completed: true))
    }

    @Test func deleteAnswers204AndTheIdIsGoneAndNotReused() throws {
        #expect(try harness.send(.delete, "/todos/1").status == 204)
        #expect(try harness.send(.delete, "/todos/1").status == 404)
        #expect(try harness.send(.get, "/todos").text == "[]")
        #expect(try harness.send(.post, "/todos", json: #"{"title":"Next one"}"#).headers["Location"] == "/todos/2")
    }

    @Test func unknownAndMalformedIds() throws {
        for (method, json) in [(HTTPMethod.get, nil), (.patch, #"{"completed":true}"#), (.delete, nil)] {
            let missing = try harness.send(method, "/todos/99", json: json)
            #expect(missing.status == 404)
            #expect(try ErrorBody(missing).error == "not_found")
            #expect(try harness.send(method, "/todos/abc", json: json).status == 400)
        }
    }

    @Test func wrongMethodIs405WithAllow() throws {
        let response = try harness.send(.post, "/todos/1", json: #"{"title":"Walk the dog"}"#)
        #expect(response.status == 405)
        #expect(response.headers["Allow"]?.contains("PATCH") == true)
        #expect(response.headers["Allow"]?.contains("PUT") == true)
    }

    @Test func postHonoursCompleted() throws {
        let created = try harness.send(.post, "/todos", json: #"{"title":"x y z w","completed":true}"#)
        #expect(created.status == 201)
        #expect(try created.decoded(Todo.self) == Todo(id: 2, title: "x y z w", completed: true))
        #expect(try harness.decode(Todo.self, "/todos/2").completed)
        let next = try harness.send(.post, "/todos", json: #"{"title":"Walk the dog"}"#)
        #expect(try next.decoded(Todo.self).completed == false)
    }

    @Test func putReplacesAndNeedsBothFields() throws {
        let replaced = try harness.send(.put, "/todos/1", json: #"{"title":"Buy oat milk","completed":true}"#)
        #expect(replaced.status == 200)
        #expect(try replaced.decoded(Todo.self) == Todo(id: 1, title: "Buy oat milk", completed: true))
        for body in [#"{"title":"Walk the dog"}"#, #"{"completed":false}"#] {
            let partial = try harness.send(.put, "/todos/1", json: body)
            #expect(partial.status == 400)
            #expect(try ErrorBody(partial).error == "missing_field")
        }
        #expect(try harness.send(.put, "/todos/99", json: #"{"title":"Walk the dog","completed":true}"#).status == 404)
        #expect(try harness.send(.put, "/todos/1", json: #"{"title":"ab","completed":true}"#).status == 422)
        #expect(try harness.decode(Todo.self, "/todos/1") == Todo(id: 1, title: "Buy oat milk", completed: true))
    }

    @Test(arguments: ["{}", #"{"done":true}"#, #"{"completed":true,"extra":1}"#])
    func patchWithNoKnownFieldOrAnUnknownOneIs400AndChangesNothing(body: String) throws {
        let response = try harness.send(.patch, "/todos/1", json: body)
        #expect(response.status == 400)
        #expect(try harness.decode(Todo.self, "/todos/1") == Todo(id: 1, title: "Buy Milk", completed: false))
    }

    @Test func aMalformedIdempotencyKeyIs400InvalidHeaderAndChangesNothing() throws {
        let writes: [(HTTPMethod, String, String?)] = [
            (.post, "/todos", #"{"title":"Walk the dog"}"#),
            (.put, "/todos/1", #"{"title":"Buy oat milk","completed":true}"#),
            (.patch, "/todos/1", #"{"completed":true}"#), (.delete, "/todos/1", nil),
        ]
        for (method, path, json) in writes {
            for key in ["", "two words", String(repeating: "k", count: 129)] {
                let refused = try harness.send(method, path, json: json, headers: ["Idempotency-Key": key])
                #expect(refused.status == 400)
                #expect(try ErrorBody(refused).error == "invalid_header")
            }
        }
        #expect(try harness.decode([Todo].self, "/todos") == [Todo(id: 1, title: "Buy Milk")])
        let keyed = try harness.send(
            .post, "/todos", json: #"{"title":"Walk the dog"}"#, headers: ["Idempotency-Key": "k-1"])
        #expect(keyed.status == 201)
    }

    @Test func listTakesTheQueryLanguage() throws {
        for title in ["Walk the dog", "Water the plants", "Call mum"] {
            _ = try harness.send(.post, "/todos", json: #"{"title":"\#(title)"}"#)
        }
        _ = try harness.send(.patch, "/todos/3", json: #"{"completed":true}"#)
        #expect(try harness.decode([Todo].self, "/todos?completed=true").map(\.id) == [3])
        #expect(try harness.decode([Todo].self, "/todos?q=WA").map(\.id) == [2, 3])
        #expect(try harness.decode([Todo].self, "/todos?_sort=title&_order=desc&_limit=2").map(\.id) == [3, 2])
        let page = try harness.send(.get, "/todos?_page=2&_limit=3")
        #expect(try JSONDecoder().decode([Todo].self, from: Data(page.body)).map(\.id) == [4])
        #expect(page.headers["X-Total-Count"] == "4")
        #expect(page.headers["Link"]?.contains(#"</todos?_page=1&_limit=3>; rel="prev""#) == true)
        #expect(try harness.send(.get, "/todos?colour=red").status == 400)
        #expect(try harness.send(.get, "/todos?_page=x").status == 400)
    }

    @Test func bareGetServesTheSnapshotEncodedAtTheLastChange() throws {
        let before = try harness.send(.get, "/todos").body
        // Another path changes the model (as addNewTask from elsewhere would): the cached bytes follow at once.
        harness.seeds.models.todos.addNewTask.send("Changed elsewhere")
        // The task shows once the journal's write thread committed it; the bytes served follow that commit.
        var after = try harness.send(.get, "/todos")
        let deadline = ContinuousClock.now + .seconds(5)
        while after.body == before && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            after = try harness.send(.get, "/todos")
        }
        #expect(after.body != before)
        #expect(try after.decoded([Todo].self).last == Todo(id: 2, title: "Changed elsewhere"))
        #expect(after.headers["X-Total-Count"] == "2")
    }
}
