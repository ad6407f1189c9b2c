import Domain
import StrictJSON

extension DataFileContent {
    /// The whole state as json-server writes its file: `JSON.stringify(db, null, 2)`, each item's compact bytes
    /// indented as they are copied (no item is parsed or walked as a tree). `values` (value resources,
    /// `$schema`) are written as they were read; every member takes its place in `order` (the file's keys as
    /// last read), and one `order` does not name comes after the others. `size` is what the resources take
    /// as written, when known (`DocumentResource.fileSize`).
    static func fileBytes(
        _ resources: [(name: String, kind: DocumentResource.Kind, items: DocumentItems)],
        values: [DataFileValue] = [], order: [String] = [], size: Int? = nil
    ) -> [UInt8] {
        var out: [UInt8] = []
        // NB: room for the file as written, or twice the items' compact JSON (a flat file is about 1.3× it): a
        // buffer grown by doubling held two copies of a 100 MB file at once while it was copied (and a deeply
        // nested item is many times its compact JSON); a large buffer is mapped, and its pages take memory
        // only once written, so the room not used costs none.
        let compact = resources.reduce(0) { sum, resource in
            sum + (resource.items.singular?.bytes.count ?? 0)
                + resource.items.documents.reduce(0) { $0 + $1.bytes.count }
        }
        out.reserveCapacity(max(size ?? 0, 2 * compact) + values.reduce(0) { $0 + 2 * $1.bytes.count } + 4096)
        let byName = Dictionary(resources.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let valueByName = Dictionary(values.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let names = writingOrder(order, names: resources.map(\.name) + values.map(\.name))
        out.append(contentsOf: "{".utf8)
        for (index, name) in names.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\n  ".utf8)
            JSONValue.writeString(name, into: &out)
            out.append(contentsOf: ": ".utf8)
            guard let position = byName[name] else {
                if let value = valueByName[name] {
                    JSONValue.writeIndented(compact: value.bytes, into: &out, indent: 2, depth: 1)
                }
                continue
            }
            let resource = resources[position]
            switch resource.kind {
            case .singular:
                JSONValue.writeIndented(
                    compact: resource.items.singular?.bytes ?? Array("{}".utf8), into: &out, indent: 2, depth: 1)
            case .collection:
                let documents = resource.items.documents
                if documents.isEmpty {
                    out.append(contentsOf: "[]".utf8)
                    continue
                }
                out.append(UInt8(ascii: "["))
                for (position, document) in documents.enumerated() {
                    if position > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: "\n    ".utf8)
                    JSONValue.writeIndented(compact: document.bytes, into: &out, indent: 2, depth: 2)
                }
                out.append(contentsOf: "\n  ]".utf8)
            }
        }
        out.append(contentsOf: names.isEmpty ? "}".utf8 : "\n}".utf8)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// `names` (each once) in the order `order` gives them, the ones it lacks after, in their own order: the
    /// order of the members in the file written back and in `GET /db`.
    static func writingOrder(_ order: [String], names: [String]) -> [String] {
        let wanted = Set(names)
        var placed = Set<String>()
        var result: [String] = []
        result.reserveCapacity(names.count)
        for name in order + names where wanted.contains(name) && placed.insert(name).inserted { result.append(name) }
        return result
    }
}
