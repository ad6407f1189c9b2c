import Domain
import HTTP
import StrictJSON

/// `_embed` and `_expand` of a list or an item: children (`comments` whose `postId` is the item's id) and
/// parents (the `post` named by the item's `postId`), added as members of the answered items.
///
/// An answer's size is part of its work: one request for 10,000 comments each with its 100 KB post would
/// build a 1 GB answer from a 369 KB file and hold its loop for seconds. So a list's answer is first sized
/// from the stored bytes (nothing encoded), and refused with a 400 `query_too_expensive` when it would be
/// over `maxBytes`, or over `freeBytes` and `maxGrowth` times the bytes of the items it reads; building it
/// then counts against the list query's work budget (`ListQuery.Meter`), as filtering and sorting do.
struct DocumentRelations {
    let store: DocumentStore
    let query: DocumentQuery
    let resource: String

    /// An answer up to this size is never refused for its size.
    static let freeBytes = 1 << 20
    /// How many times the bytes of the items it reads (the page's items, their children and each parent
    /// once) a larger answer may be.
    static let maxGrowth = 64
    /// The largest answer built whatever it reads: the largest a data file may grow to (`--max-file-mb`).
    static let maxBytes = 1 << 30

    /// The items as a JSON array, each with its relations; a 400 `query_too_expensive` when the answer would
    /// be too large for what it reads, or building it takes more than the work budget.
    func encodeList(_ documents: [StoredDocument]) throws(HTTPError) -> [UInt8] {
        var meter = ListQuery.Meter(advice: "ask for fewer items (_limit) or fewer _embed and _expand")
        if hasRelations { try checkSize(of: documents, meter: &meter) }
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, document) in documents.enumerated() {
            if hasRelations { try meter.check() }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: encode(document))
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// The items of `child` whose `field` reads as `key` (JavaScript's `String(value)`), in order: from the
    /// field's index, which parses each item once per change rather than once per request. The index leaves
    /// out null and missing values, which only the key "null" could match (`String(null)`): that one scans.
    static func children(of key: String, in child: DocumentResource, field: String) -> [StoredDocument] {
        guard key == "null" else { return child.documents(whereValueAt: [field], isOneOf: [key]) }
        return child.items.documents.filter { $0.object[field].map(DocumentQuery.text) == key }
    }

    /// The collection `_expand=name` reads parents from: the first whose singular is `name` (json-server
    /// reads the plural of the name: `person` → `people`), else the collection named `name`.
    static func parent(named name: String, in store: DocumentStore) -> DocumentResource? {
        // NB: asked once per item of a list: the usual plural (`post` → `posts`) is looked up first, and only
        // another name walks the collections.
        if let usual = store.byName[name + "s"], usual.kind == .collection, DocumentStore.singular(usual.name) == name {
            return usual
        }
        let collections = store.resources.filter { $0.kind == .collection }
        return collections.first { DocumentStore.singular($0.name) == name } ?? collections.first { $0.name == name }
    }

    /// One item with its relations (its stored bytes when the query asks for none).
    func encode(_ document: StoredDocument) -> [UInt8] {
        guard hasRelations else { return document.bytes }
        let members = relations(of: document)
        guard !members.isEmpty else { return document.bytes }
        // The usual case: none of the members is in the item, and each name needs no escape; they are then
        // the item's last members, as an assignment adds them, spliced into its bytes without parsing any.
        if members.allSatisfy({ Self.isPlainName($0.name) && !Self.contains(document.bytes, member: $0.name) }) {
            var out = document.bytes
            out.removeLast()  // its `}`
            for (index, member) in members.enumerated() {
                if index > 0 || document.bytes.count > 2 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: member.name.utf8)
                out.append(contentsOf: Array("\":".utf8))
                out.append(contentsOf: member.value)
            }
            out.append(UInt8(ascii: "}"))
            return out
        }
        var object = document.object
        for member in members {
            guard case .some(let value) = try? JSONValue.parsing(member.value, from: 0).value else { continue }
            object[member.name] = value
        }
        return object.compactBytes
    }

    // MARK: Relations

    private var hasRelations: Bool { !query.embed.isEmpty || !query.expand.isEmpty }

    /// The members `document` gains, in order (children first, as `_embed` names them, then parents), each
    /// with its value's compact JSON.
    private func relations(of document: StoredDocument) -> [(name: String, value: [UInt8])] {
        var members: [(name: String, value: [UInt8])] = []
        let key = document.id?.key ?? ""
        for childName in Self.unique(query.embed) {
            guard let child = store.byName[childName], child.kind == .collection else { continue }
            let children = Self.children(of: key, in: child, field: store.parentField(of: resource))
            var value: [UInt8] = [UInt8(ascii: "[")]
            for (index, item) in children.enumerated() {
                if index > 0 { value.append(UInt8(ascii: ",")) }
                value.append(contentsOf: item.bytes)
            }
            value.append(UInt8(ascii: "]"))
            members.append((childName, value))
        }
        for parentName in Self.unique(query.expand) {
            guard let found = parent(parentName, of: document) else { continue }
            members.append((parentName, found.bytes))
        }
        return members
    }

    /// The item `_expand=name` adds to `document`: the one its `<name>Id` names.
    private func parent(_ name: String, of document: StoredDocument) -> StoredDocument? {
        guard let raw = document.object[name + store.foreignKeySuffix],
            let parent = Self.parent(named: name, in: store)
        else { return nil }
        return parent.document(DocumentID(pathSegment: DocumentQuery.text(raw)))
    }

    /// Sizes the answer from the stored bytes and throws the 400 when it is too large for what it reads.
    private func checkSize(of documents: [StoredDocument], meter: inout ListQuery.Meter) throws(HTTPError) {
        var answer = 2
        var read = 0
        var parentsRead = Set<String>()
        let field = store.parentField(of: resource)
        let embeds = Self.unique(query.embed).compactMap { name in store.byName[name].map { (name, $0) } }
        let expands = Self.unique(query.expand)
        for document in documents {
            try meter.check()
            answer += document.bytes.count + 1
            read += document.bytes.count
            let key = document.id?.key ?? ""
            for (name, child) in embeds where child.kind == .collection {
                let bytes = Self.children(of: key, in: child, field: field).reduce(0) { $0 + $1.bytes.count + 1 }
                answer += name.utf8.count + 5 + bytes
                read += bytes
            }
            for name in expands {
                guard let found = parent(name, of: document) else { continue }
                answer += name.utf8.count + 4 + found.bytes.count
                if parentsRead.insert(name + "/" + (found.id?.key ?? "")).inserted { read += found.bytes.count }
            }
            if answer > Self.maxBytes { break }
        }
        if answer > Self.maxBytes || answer > Self.freeBytes && answer > Self.maxGrowth * read {
            throw ListQuery.tooExpensive(
                "the answer would be \(answer >> 10) KiB built from \(read >> 10) KiB of items: _embed and _expand"
                    + " may make an answer at most \(Self.maxGrowth) times the items it reads (or 1 MiB);"
                    + " ask for fewer items (_limit) or expand on the client")
        }
    }

    /// `names` without repeats, in order.
    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// A name written between quotes as it is: letters, digits, `-` and `_` (a resource's name).
    private static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    /// Whether compact JSON `bytes` may hold the member `name` (a plain name, `isPlainName`): it holds
    /// `"name":`. A string value holding those bytes makes a false positive, which only costs a parse.
    private static func contains(_ bytes: [UInt8], member name: String) -> Bool {
        let needle = Array("\"\(name)\":".utf8)
        guard bytes.count >= needle.count else { return false }
        var index = 0
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
