import Domain
import Reactive
import StrictJSON

extension EventHub {
    /// Subscribes to a data file resource's view model: its items now become the topic's first event, and
    /// each applied change one more, whose data are the whole list (or object) and, for a collection, the
    /// change for `?diff=1` clients (`{"inserted","updated","deleted"}`).
    func attach(_ topic: EventTopic, documents resource: DocumentResource) {
        publish(topic) { (resource.bytes, nil) }
        keep(
            resource.changes.sink { [weak self] applied in
                self?.publish(topic) {
                    // NB: the sink runs as the change applies, before the next one: `bytes` is this change's list.
                    let whole = resource.bytes
                    guard topic.isCollection else { return (whole, nil) }
                    return (whole, Self.diff(applied.change))
                }
            })
    }

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
