import TestSupport
import Testing

@testable import HTTP

/// The Origin rule and a request's `_delay`, in the pipeline above the router.
@Suite struct HTTPServiceOriginTests {
    private func service(cors: CORSPolicy? = .loopback) -> HTTPService {
        var router = Router()
        router.get("/todos") { request in .response(Response(status: 200, body: Array(request.rawQuery.utf8))) }
        router.post("/todos") { _ in .response(Response(status: 201)) }
        return HTTPService(router: router, cors: cors)
    }

    private func post(_ service: HTTPService, origin: String?, host: String = "127.0.0.1:3000") throws -> Response {
        var headers: HTTPHeaders = ["Host": host]
        if let origin { headers["Origin"] = origin }
        return try service.respond(to: Request(.post, "/todos", headers: headers)).immediate()
    }

    @Test func aWriteFromAForeignOriginIsRefused() throws {
        let service = service()
        #expect(try post(service, origin: "http://evil.test").status == 403)
        #expect(try post(service, origin: "null").status == 403)
        #expect(try post(service, origin: nil).status == 201)
        #expect(try post(service, origin: "http://localhost:5173").status == 201)
        // Its own pages, whatever --cors says.
        #expect(try post(self.service(cors: nil), origin: "http://127.0.0.1:3000").status == 201)
        #expect(
            try post(self.service(cors: nil), origin: "http://LOCALHOST:8080", host: "localhost:8080").status == 201)
        #expect(
            try post(self.service(cors: nil), origin: "http://localhost:8081", host: "localhost:8080").status == 403)
    }

    @Test func corsNullAdmitsPagesOpenedFromAFile() throws {
        let policy = try #require(CORSPolicy(parsing: "null, http://localhost:3000"))
        #expect(policy.allowedOrigin(for: "null") == "null")
        #expect(try post(service(cors: policy), origin: "null").status == 201)
    }

    @Test(arguments: ["abc", "-5", "10001", "1.5"])
    func aMalformedDelayIsA400(value: String) throws {
        let response = try service().respond(to: Request(.get, "/todos?_delay=\(value)")).immediate()
        #expect(response.status == 400)
    }
}
