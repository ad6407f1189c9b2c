import Domain
import Support
import Synchronization

extension DataFileService {
    /// What a person's save changed in the set of resources: those it added (or that changed kind), served
    /// from now on with their topics, and those it removed (or that changed kind), with their topics.
    struct ResourceChange: Sendable {
        var added: [(resource: DocumentResource, topic: EventTopic)]
        var removed: [(name: String, topic: EventTopic?)]
    }

    /// The resources' topics now, in the file's order.
    var currentTopics: [EventTopic] { served.withLock { $0.topics } ?? topics }

    /// Serves the resources of a person's save `content` that are new (or changed kind) with their items as
    /// saved, and stops serving those it no longer holds (or holds as another kind): they answer 404 from now
    /// on, and `onResources` ends their streams. On the writer queue, before the save's items are compared.
    ///
    /// NB: the new resources' items are not journaled: the file holds them, and the file with the entries
    /// after its last write-back is the state at a start, as for the resources it started with.
    func changeResources(to content: DataFileContent) {
        let current = store.byName
        let saved = Dictionary(content.resources.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let removed = store.resources.filter { saved[$0.name]?.kind != $0.kind }.map(\.name)
        // NB: a list of values that now holds items keeps its route (`DataFileValues.served`, fixed at start)
        // until a restart: a second route of the same name would be a duplicate in the router.
        let valueNames = Set(values.served)
        let new = content.resources.filter { current[$0.name]?.kind != $0.kind && !valueNames.contains($0.name) }
        for resource in content.resources where valueNames.contains(resource.name) {
            Log.warning("\(path): '\(resource.name)' is new or changed kind; restart the server to serve it")
        }
        guard !removed.isEmpty || !new.isEmpty else { return }
        let before = currentTopics
        var slot = served.withLock { $0.nextSlot } ?? topics.count
        var added: [String: (resource: DocumentResource, topic: EventTopic)] = [:]
        // NB: a slot is never given twice in a run (a removed resource's clients may still hold its topic), and
        // there is no limit to them (`TopicMask`).
        for resource in new {
            let model = resource.model()
            let topic = EventTopic.document(resource.name, index: slot, collection: resource.kind == .collection)
            added[resource.name] = (model, topic)
            slot += 1
        }
        var models: [DocumentResource] = []
        var topicsNow: [EventTopic] = []
        for resource in content.resources {
            if let (model, topic) = added[resource.name] {
                models.append(model)
                topicsNow.append(topic)
            } else if let model = current[resource.name], model.kind == resource.kind,
                let topic = before.first(where: { $0.rawValue == resource.name })
            {
                models.append(model)
                topicsNow.append(topic)
            }
        }
        store.replaceResources(models)
        served.withLock { $0 = (topicsNow, slot) }
        for name in removed {
            Log.info("\(path): '\(name)' is no longer in the file as it was: it answers 404, and its live streams end")
        }
        for name in added.keys.sorted() { Log.info("\(path): '\(name)' is new in the file: served from now on") }
        let change = ResourceChange(
            added: content.resources.compactMap { added[$0.name] },
            removed: removed.map { name in (name, before.first { $0.rawValue == name }) })
        onResources.withLock { $0 }?(change)
    }
}
