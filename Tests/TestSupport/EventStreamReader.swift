import Foundation

/// One Server-Sent Event as a client parses it.
package struct ReceivedEvent: Equatable {
    package var id: String?
    package var event: String
    package var data: String

    /// `data` parsed as JSON.
    package var json: Any? { try? JSONSerialization.jsonObject(with: Data(data.utf8)) }
}

/// A live `GET /events` connection to the `livestate` binary, read event by event.
package final class EventStreamReader {
    private let client: RawHTTPClient
    private var text = ""

    /// Connects and reads the response head (the status must be 200).
    package init(port: Int, topics: String) throws {
        client = try RawHTTPClient(port: port, timeout: 1)
        try client.sendRequest("GET", "/events?topics=\(topics)")
        let head = try client.readResponse(head: true)
        guard head.status == 200 else { throw RawHTTPClient.Failure(description: "/events answered \(head.status)") }
    }

    /// Every event that arrives within `seconds` (comments and the `retry:` line left out).
    package func events(for seconds: Double) -> [ReceivedEvent] {
        var received: [ReceivedEvent] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            received += take()
            // A receive timeout (1 s) throws; the stream is still open.
            if let chunk = try? client.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        }
        return received + take()
    }

    /// Reads until an event satisfies `condition` or `timeout` passes; every event read on the way.
    package func events(until condition: (ReceivedEvent) -> Bool, timeout: Double) -> [ReceivedEvent] {
        var received: [ReceivedEvent] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            received += take()
            if received.contains(where: condition) { return received }
            if let chunk = try? client.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        }
        return received + take()
    }

    /// Parses the complete events buffered so far.
    private func take() -> [ReceivedEvent] {
        var events: [ReceivedEvent] = []
        while let end = text.range(of: "\n\n") {
            let block = text[..<end.lowerBound]
            text.removeSubrange(..<end.upperBound)
            var event = ReceivedEvent(id: nil, event: "message", data: "")
            var hasData = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event.event = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") {
                    event.data += (hasData ? "\n" : "") + line.dropFirst(6)
                    hasData = true
                }
            }
            if hasData { events.append(event) }
        }
        return events
    }
}
