import Testing

@testable import HTTP
@testable import Support

/// The one line per request, as a loop's buffer holds it before a flush writes it to stderr.
@Suite struct RequestLogTests {
    private static func line(method: HTTPMethod = .get, path: String, status: Int, note: String = "") -> String {
        let buffer = LogBuffer(registered: false)
        RequestLog(method: method, path: path, arrived: RequestLog.now()).write(
            status: status, note: note, to: buffer)
        return String(decoding: buffer.take(), as: UTF8.self)
    }

    @Test func aLineSaysTimeLevelMethodPathStatusAndDuration() throws {
        let line = Self.line(path: "/todos", status: 200)
        let pattern = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info GET \/todos 200 \d+\.\dms\n/
        #expect(try pattern.wholeMatch(in: line) != nil, "\(line)")
        #expect(Self.line(method: .post, path: "/events", status: 201, note: " (stream)").hasSuffix("ms (stream)\n"))
        #expect(Self.line(path: "/x", status: 404).contains(" info GET /x 404 "))
    }

    @Test func aPathWithControlCharactersStaysOneEscapedLine() {
        let line = Self.line(path: "/todos\nGET /forged 200", status: 404)
        #expect(line.filter { $0 == "\n" }.count == 1)
        #expect(line.contains(#"/todos\u{a}GET /forged 200 404 "#))
    }
}
