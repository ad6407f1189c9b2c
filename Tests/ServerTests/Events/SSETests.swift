import Foundation
import Synchronization
import Testing

@testable import HTTP
@testable import Server

/// The frame bytes (`SSE`) and `EventRecord`.
@Suite struct SSETests {
    @Test func framesAnEventWithIdNameAndOneDataLine() {
        let frame = SSE.event(id: 41, name: "todos", data: Array(#"[{"id":1}]"#.utf8))
        #expect(String(decoding: frame, as: UTF8.self) == "id: 41\nevent: todos\ndata: [{\"id\":1}]\n\n")
    }

    @Test func splitsAValueWithLineBreaksIntoDataLines() {
        let frame = SSE.event(id: 1, name: "x", data: Array("a\r\nb\nc".utf8))
        #expect(String(decoding: frame, as: UTF8.self) == "id: 1\nevent: x\ndata: a\ndata: b\ndata: c\n\n")
    }

    @Test func recordKeepsTheDiffFrameForDiffClientsOnly() {
        let record = EventRecord(id: 7, topic: .posts, json: Array("[]".utf8), diffJSON: Array("{}".utf8))
        #expect(String(decoding: record.frame(diff: false).bytes, as: UTF8.self).hasSuffix("data: []\n\n"))
        #expect(String(decoding: record.frame(diff: true).bytes, as: UTF8.self).hasSuffix("data: {}\n\n"))
        let plain = EventRecord(id: 8, topic: .image, json: Array("{}".utf8))
        #expect(plain.frame(diff: true) === plain.frame)
    }
}
