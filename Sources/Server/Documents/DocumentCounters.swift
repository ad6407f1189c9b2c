import Domain
import StrictJSON

/// Per resource, the largest numeric id and whether every id is a string, so a `POST` needs no scan.
struct DocumentCounters: Sendable {
    var maxID: [String: Int64] = [:]
    var stringIDs: Set<String> = []

    init(_ resources: [any StoreResource]) {
        for resource in resources {
            if let known = resource.knownIDs {
                maxID[resource.name] = known.largest
                if known.allStrings { stringIDs.insert(resource.name) }
                continue
            }
            let items = resource.items
            var largest: Int64 = 0
            var strings = 0
            for document in items.documents {
                guard let id = document.id else { continue }
                if case .integer(let number) = id.value { largest = max(largest, number) } else { strings += 1 }
            }
            maxID[resource.name] = largest
            if strings > 0, strings == items.count { stringIDs.insert(resource.name) }
        }
    }
}
