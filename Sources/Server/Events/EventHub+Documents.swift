import Domain
import HTTP
import Reactive
import StrictJSON

extension EventHub {
    /// Subscribes to a data file resource's view model: its items now become the topic's first event, and
    /// each applied change one more, whose data are the whole list (or object) and, for a collection, the
    /// change for `?diff=1` clients (`{"inserted","updated","deleted"}`).
    ///
    /// Each event's id is its entry's journal id × `journalBlock`, carried by the applied change (the same
    /// on every instance). A new client's first event of the topic is read from the view model when it
    /// connects (its current JSON, with the id of the last change it shows), so the hub keeps no copy of a
    /// large collection.
    /// A collection whose JSON is over `wholeListLimit` sends its change to every client, `?diff=1` or
    /// not: the whole list on every write would cost a copy of the collection per write and would not fit
    /// the recent-events buffer. Under it, an event's whole list is encoded when a client first reads it
    /// (`EventData.later`): a write that no client without `?diff=1` reads costs its change only.
    func attach(_ topic: EventTopic, documents resource: DocumentResource, live: DocumentLiveFeed? = nil) {
        current(topic) {
            let snapshot = resource.snapshot
            return (snapshot.bytes, UInt64(max(0, snapshot.seq)) * EventIDSource.journalBlock)
        }
        keep(
            resource.changes.sink { [weak self] applied in
                // NB: a catch-up change is no journal entry: its event takes an id of this server's.
                let journaled = applied.isJournaled ? UInt64(max(0, applied.seq)) * EventIDSource.journalBlock : nil
                self?.publish(
                    topic, journaled: journaled,
                    data: {
                        guard topic.isCollection else { return (.json(resource.bytes), nil) }
                        let diff = Self.diff(applied.change)
                        guard applied.encodedSize <= Self.wholeListLimit else { return (.json(diff), diff) }
                        // NB: the sink runs as the change applies, before the next one: `bytesLater` is this
                        // list, encoded only if a client reads it whole (live, or resuming from the log).
                        return (.later(size: applied.encodedSize, write: resource.bytesLater), diff)
                    },
                    recorded: { id in live?.changed(id: id, change: applied.change) })
            })
    }

    /// Ends the streams of the clients of `topic`, whose resource was removed from the data file, each with
    /// `frame` last; a new client cannot ask for it (`/events` takes the topics served now).
    func end(_ topic: EventTopic, with frame: SharedBytes) {
        for fanout in fanouts { fanout.end(topic, with: frame) }
    }

    /// The largest collection whose events carry the whole list to clients without `?diff=1`.
    static let wholeListLimit = 1 << 20

    /// `{"inserted":[…],"updated":[…],"deleted":[…]}` of one change.
    static func diff(_ change: DocumentChange) -> [UInt8] {
        var out = Array(#"{"inserted":["#.utf8)
        if case .inserted(let document) = change { out.append(contentsOf: document.bytes) }
        out.append(contentsOf: #"],"updated":["#.utf8)
        if case .updated(let document) = change { out.append(contentsOf: document.bytes) }
        out.append(contentsOf: #"],"deleted":["#.utf8)
        if case .deleted(let id) = change { id.value.write(into: &out, indent: 0, depth: 0) }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}
