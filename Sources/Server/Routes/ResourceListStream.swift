import HTTP
import StrictJSON
import Synchronization

/// `GET /_livestate/resources`, the built-in page's stream of the data file's set of resources: one
/// `resources` event when it opens and one more each time a save adds or removes a resource, whose data is
/// `[{"name", "kind"}]` in the file's order (`kind`: `collection` or `singular`). The page reads the items
/// themselves through `/db` and live queries; this only tells it when the set changed.
///
/// ```swift
/// let streams = ResourceListStream { store.resources }
/// router.get("/_livestate/resources") { _ in streams.reply() }
/// streams.changed()
/// ```
final class ResourceListStream: Sendable {
    /// The open streams, by identity; each is written on its own loop.
    private let streams = Mutex<[ObjectIdentifier: any HTTPStream]>([:])
    /// The resources now: names and kinds, in the file's order.
    private let resources: @Sendable () -> [(name: String, collection: Bool)]

    /// Streams the set `resources` gives.
    init(_ resources: @escaping @Sendable () -> [(name: String, collection: Bool)]) {
        self.resources = resources
    }

    /// The stream of one page: the set now, then each new one.
    func reply() -> Reply {
        .stream(headers: LiveQueryEngine.streamHeaders) { [self] stream in
            let key = ObjectIdentifier(stream)
            streams.withLock { $0[key] = stream }
            stream.onClose { [self] in streams.withLock { $0[key] = nil } }
            stream.write(SSE.retry + frame())
        }
    }

    /// Sends the set now to every open stream (a save added or removed resources).
    func changed() {
        let frame = frame()
        for stream in streams.withLock({ Array($0.values) }) {
            stream.loop.execute {
                guard !stream.isClosed else { return }
                stream.write(frame)
            }
        }
    }

    /// The `resources` event of the set now.
    private func frame() -> [UInt8] {
        var data: [UInt8] = [UInt8(ascii: "[")]
        for (index, resource) in resources().enumerated() {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            data += Array(#"{"name":"#.utf8)
            JSONValue.writeString(resource.name, into: &data)
            data += Array((resource.collection ? #","kind":"collection"}"# : #","kind":"singular"}"#).utf8)
        }
        data.append(UInt8(ascii: "]"))
        return Array("event: resources\ndata: ".utf8) + data + Array("\n\n".utf8)
    }
}
