import StrictJSON

/// The items of a resource, in their order: slots in the collection's order (a deleted item leaves an
/// empty slot until half of them are empty), an index from id text to slot, or the one object of a
/// singular resource.
package struct DocumentItems: Sendable {
    private var slots: [StoredDocument?] = []
    private var positions = DocumentPositions()
    /// The singular resource's object.
    package private(set) var singular: StoredDocument?
    /// The encoded whole, dropped on every change.
    var cachedBytes: [UInt8]?
    /// The items in order, made once per change.
    private var cachedDocuments: [StoredDocument]?
    /// Per field path: each value's text → the slots holding it, in order; kept in step with each write
    /// (`reindex`), dropped when the slots are renumbered.
    /// NB: keyed by the path's keys, not their text joined by ".": `["a.b"]` and `["a", "b"]` are two fields.
    private var indexes: [[String]: [DocumentIndexKey: [Int]]] = [:]
    /// The most field indexes kept at once (each is as large as the collection's index of ids).
    static let maxIndexes = 4
    /// The journal id of the last entry applied.
    var lastSeq: Int64 = 0
    /// The sum of the items' JSON sizes, kept with every change.
    private var itemBytes = 0
    /// The items' size as the data file holds them (`fileSize`: indented, each after its comma and line
    /// break; the singular object's, indented), kept with every change.
    private var indentedBytes = 0
    /// How many times the slots were renumbered (`compact`): an index built across it files wrong slots.
    private var renumberings = 0
    /// The index builds under way outside the lock (`DocumentResource.buildIndex`), by token: the slots
    /// written since each started, to be filed again when it is done.
    private var builds: [Int: Set<Int>] = [:]
    private var nextBuild = 0
    /// The slots each write since an earlier state touched (bounded), and the empty slots, ascending: what an
    /// index of an earlier state is brought up to date by (`slotCount`, `slot(_:)`, `holes(below:)`).
    package private(set) var log = DocumentChangeLog()
    private var holes: [Int] = []

    /// An index build under way: its token, field, the slots it indexes and when they were numbered.
    package struct IndexBuild: Sendable {
        fileprivate var token: Int
        fileprivate var path: [String]
        var slots: [StoredDocument?]
        fileprivate var renumberings: Int
    }

    package init(_ documents: [StoredDocument], indentation: Int? = nil) {
        slots.reserveCapacity(documents.count)
        positions.reserveCapacity(documents.count)
        for document in documents {
            guard let id = document.id else {
                singular = document
                continue
            }
            // NB: one lookup for a new id (a data file's load files hundreds of thousands); a later item with
            // an id taken replaces the earlier one in its place.
            if let slot = positions.insert(id, at: slots.count) {
                itemBytes -= slots[slot]?.bytes.count ?? 0
                slots[slot] = document
            } else {
                slots.append(document)
            }
            itemBytes += document.bytes.count
        }
        // NB: with no id twice and no singular object, the items in order are `documents`: shared, not copied.
        cachedDocuments = singular == nil && slots.count == documents.count ? documents : slots.compactMap { $0 }
        if let singular {
            indentedBytes = singular.bytes.count + (indentation ?? Self.indentation(of: singular.bytes, depth: 1))
        } else {
            // NB: each item's line break, its indent and the comma before it, then its own lines.
            let items = cachedDocuments ?? []
            indentedBytes =
                itemBytes + items.count * Self.itemLead
                + (indentation ?? items.reduce(0) { $0 + Self.indentation(of: $1.bytes, depth: 2) })
        }
    }

    /// The items a data file's load filed as it read them: no pass over them again. `indentation` as for
    /// `init(_:indentation:)`.
    package init(loaded: DocumentItemsLoad, indentation: Int?) {
        slots = loaded.slots
        positions = loaded.positions
        cachedDocuments = loaded.documents
        if loaded.documents.count != slots.count { holes = slots.indices.filter { slots[$0] == nil } }
        itemBytes = loaded.itemBytes
        indentedBytes =
            itemBytes + loaded.count * Self.itemLead
            + (indentation ?? loaded.documents.reduce(0) { $0 + Self.indentation(of: $1.bytes, depth: 2) })
    }

    /// What indenting `bytes`, compact JSON at `depth`, adds to them.
    private static func indentation(of bytes: [UInt8], depth: Int) -> Int {
        JSONValue.indentedCount(compact: bytes, indent: 2, depth: depth) - bytes.count
    }

    /// The comma, line break and indent before an item of a collection in the file.
    private static let itemLead = 6

    /// The size of the whole list's JSON (or the object's), without encoding it.
    func encodedSize(singular isSingular: Bool) -> Int {
        isSingular ? (singular?.bytes.count ?? 2) : 2 + itemBytes + max(0, positions.count - 1)
    }

    /// The bytes the collection's items (or the object) take in the data file as it is written: indented
    /// as json-server writes it, an item on its own lines (`DataFileContent.fileBytes`).
    var fileSize: Int { indentedBytes }

    /// What `item` adds to a collection in the data file: its lines, indented at depth 2, and the comma and
    /// line break before them.
    package static func fileSize(of item: StoredDocument) -> Int {
        fileSize(ofCompact: item.bytes)
    }

    /// `fileSize(of:)` of an item whose compact JSON is `bytes`.
    package static func fileSize(ofCompact bytes: [UInt8]) -> Int {
        itemLead + JSONValue.indentedCount(compact: bytes, indent: 2, depth: 2)
    }

    /// How many items the collection holds.
    package var count: Int { positions.count }

    /// The item `id`, or nil.
    package func document(_ id: DocumentID) -> StoredDocument? { positions.slot(of: id).flatMap { slots[$0] } }

    /// The id text of the item just before `id` in the collection's order; nil when `id` is first or not held.
    /// Steps over the empty slots deletes left (fewer than the items: `compact`).
    func key(before id: DocumentID) -> String? {
        guard var slot = positions.slot(of: id) else { return nil }
        while slot > 0 {
            slot -= 1
            if let document = slots[slot] { return document.id?.key }
        }
        return nil
    }

    /// The id text of the collection's last item; nil when it holds none.
    var lastKey: String? {
        for slot in slots.reversed() { if let document = slot { return document.id?.key } }
        return nil
    }

    /// The items in order.
    package var documents: [StoredDocument] { cachedDocuments ?? slots.compactMap { $0 } }

    /// How many slots there are, empty ones included.
    package var slotCount: Int { slots.count }

    /// The item in `slot` (below `slotCount`); nil for an empty one.
    package func slot(_ slot: Int) -> StoredDocument? { slots[slot] }

    /// How many empty slots there are below `slot`: the item in `slot` is at `slot - holes(below: slot)` in
    /// `documents`.
    package func holes(below slot: Int) -> Int { Self.position(of: slot, in: holes) }

    /// Applies `entry`; nil when it changed nothing.
    mutating func apply(_ entry: DocumentEntry, singular isSingular: Bool) -> DocumentChange? {
        if isSingular {
            guard let object = entry.document else { return nil }
            let stored = StoredDocument(id: nil, object: object)
            if stored.bytes == singular?.bytes { return nil }
            singular = stored
            indentedBytes = JSONValue.indentedCount(compact: stored.bytes, indent: 2, depth: 1)
            cachedBytes = nil
            return .updated(stored)
        }
        guard let id = entry.id else { return nil }
        guard let object = entry.document else {
            guard let slot = positions.remove(id), let old = slots[slot] else { return nil }
            itemBytes -= old.bytes.count
            indentedBytes -= Self.fileSize(of: old)
            slots[slot] = nil
            changed()
            holes.insert(slot, at: Self.position(of: slot, in: holes))
            log.record(seq: entry.seq, slot: slot, kind: .deleted)
            if slots.count > 32, positions.count < slots.count / 2 {
                compact()
                log.restart(after: entry.seq)
            }
            return .deleted(old.id ?? id)
        }
        if let slot = positions.slot(of: id), let old = slots[slot] {
            // NB: the id as the item holds it (a path's `1` may name the item whose id is `"1"`), so that an
            // item's `id.value` stays the value of its id field, which a sort by id reads instead of parsing.
            let stored = StoredDocument(id: old.id ?? id, object: object, keepsTree: keepsTrees)
            if old.bytes == stored.bytes { return nil }
            itemBytes += stored.bytes.count - old.bytes.count
            indentedBytes += Self.fileSize(of: stored) - Self.fileSize(of: old)
            slots[slot] = stored
            changed()
            log.record(seq: entry.seq, slot: slot, kind: .updated)
            reindex(slot, from: old, to: stored)
            written(slot)
            return .updated(stored)
        }
        let stored = StoredDocument(id: id, object: object, keepsTree: keepsTrees)
        positions.insert(id, at: slots.count)
        slots.append(stored)
        itemBytes += stored.bytes.count
        indentedBytes += Self.fileSize(of: stored)
        changed()
        log.record(seq: entry.seq, slot: slots.count - 1, kind: .inserted)
        reindex(slots.count - 1, from: nil, to: stored)
        written(slots.count - 1)
        return .inserted(stored)
    }

    /// Whether a new item keeps its tree (`StoredDocument.treeLimit`).
    var keepsTrees: Bool { itemBytes <= StoredDocument.treeLimit }

    /// Whether an index of `path` is built.
    func hasIndex(at path: [String]) -> Bool { indexes[path] != nil }

    /// Drops the encoded whole and the items in order, made again by the next reader. Keeping the items in
    /// order in step with each write (set, append or remove at the slot's place) saved that reader 10-20 ms on
    /// 100,000 items in a debug build, but left a windowed GET answering a deleted item after the slots were
    /// renumbered (`test_a_live_window_holding_few_items_past_its_end_reads_them_anew_when_writes_take_them`),
    /// for a reason not found yet.
    private mutating func changed() {
        cachedBytes = nil
        cachedDocuments = nil
    }

    /// Notes that `slot` was written, for the index builds under way.
    private mutating func written(_ slot: Int) {
        for token in Array(builds.keys) { builds[token]?.insert(slot) }
    }

    /// Starts a build of the index of `path` outside the lock (nil: it exists already).
    mutating func beginIndexBuild(at path: [String]) -> IndexBuild? {
        guard indexes[path] == nil else { return nil }
        nextBuild += 1
        builds[nextBuild] = []
        return IndexBuild(token: nextBuild, path: path, slots: slots, renumberings: renumberings)
    }

    /// Files `built` (the index of `build.slots`) as the index of its field, after filing again the slots
    /// written since the build started; dropped when the slots were renumbered meanwhile or another build
    /// of the field finished first.
    mutating func finishIndexBuild(_ build: IndexBuild, built: [DocumentIndexKey: [Int]]) {
        let written = builds.removeValue(forKey: build.token) ?? []
        guard build.renumberings == renumberings, indexes[build.path] == nil else { return }
        var index = built
        for slot in written.sorted() {
            let old = slot < build.slots.count ? build.slots[slot]?.object : nil
            if let oldText = old.flatMap({ Self.indexedText(of: $0, at: build.path) }), var filed = index[oldText] {
                let position = Self.position(of: slot, in: filed)
                if position < filed.count, filed[position] == slot { filed.remove(at: position) }
                index[oldText] = filed.isEmpty ? nil : filed
            }
            if let new = slots[slot]?.object, let newText = Self.indexedText(of: new, at: build.path) {
                var filed = index[newText] ?? []
                let position = Self.position(of: slot, in: filed)
                if position == filed.count || filed[position] != slot { filed.insert(slot, at: position) }
                index[newText] = filed
            }
        }
        if indexes.count >= Self.maxIndexes { indexes.removeAll() }
        indexes[build.path] = index
    }

    /// The index of the field at `path` over `slots`: each value's text → the slots holding it, in order.
    static func index(of slots: [StoredDocument?], at path: [String]) -> [DocumentIndexKey: [Int]] {
        var index: [DocumentIndexKey: [Int]] = [:]
        for (slot, document) in slots.enumerated() {
            guard let object = document?.object, let text = indexedText(of: object, at: path) else { continue }
            index[text, default: []].append(slot)
        }
        return index
    }

    /// Files the item now in `slot` (in place of `old`) in the field indexes, so that a write costs a parse
    /// of the item or two, not a parse of every item at the next filtered read. A deleted item's slot stays
    /// filed: its slot is empty, which a lookup skips, and slots are renumbered only by `compact`.
    private mutating func reindex(_ slot: Int, from old: StoredDocument?, to new: StoredDocument) {
        guard !indexes.isEmpty else { return }
        let oldObject = old?.object
        let newObject = new.object
        for path in Array(indexes.keys) {
            let oldText = oldObject.flatMap { Self.indexedText(of: $0, at: path) }
            let newText = Self.indexedText(of: newObject, at: path)
            if old != nil, oldText == newText { continue }
            // NB: the slots are changed where the index holds them: a copy taken out and put back costs the
            // whole list of a common value (every post of one user) per write.
            if let oldText,
                let (position, isLast) = indexes[path]?[oldText].flatMap({ filed -> (Int, Bool)? in
                    let position = Self.position(of: slot, in: filed)
                    return position < filed.count && filed[position] == slot ? (position, filed.count == 1) : nil
                })
            {
                if isLast {
                    indexes[path]?[oldText] = nil
                } else {
                    indexes[path]?[oldText]?.remove(at: position)
                }
            }
            if let newText {
                let position = indexes[path]?[newText].map { Self.position(of: slot, in: $0) } ?? 0
                indexes[path]?[newText, default: []].insert(slot, at: position)
            }
        }
    }

    /// The text an index files `object` under for `path` (JavaScript's `String(value)`); nil for null or a
    /// missing value, which no equality filter matches.
    private static func indexedText(of object: JSONObject, at path: [String]) -> DocumentIndexKey? {
        guard let value = object.value(at: path), value != .null else { return nil }
        return DocumentIndexKey(value.javaScriptString)
    }

    /// Where `slot` is, or goes, in the ascending `slots`.
    private static func position(of slot: Int, in slots: [Int]) -> Int {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle] < slot { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// See `DocumentResource.documents(whereValueAt:isOneOf:)`.
    mutating func documents(whereValueAt path: [String], isOneOf texts: [String]) -> [StoredDocument] {
        if indexes[path] == nil {
            if indexes.count >= Self.maxIndexes { indexes.removeAll() }
            indexes[path] = Self.index(of: slots, at: path)
        }
        let index = indexes[path] ?? [:]
        var found: [Int] = []
        for text in Set(texts.map(DocumentIndexKey.init)) { found.append(contentsOf: index[text] ?? []) }
        if texts.count > 1 { found.sort() }
        return found.compactMap { slots[$0] }
    }

    /// How many items `documents(whereValueAt:isOneOf:)` answers when the field's index is built (nil when it
    /// is not), without taking them: what a query weighs that path by.
    func count(whereValueAt path: [String], isOneOf texts: [String]) -> Int? {
        guard let index = indexes[path] else { return nil }
        var count = 0
        for text in Set(texts.map(DocumentIndexKey.init)) { count += index[text]?.count ?? 0 }
        return count
    }

    /// Drops the empty slots (after many deletes), renumbering the index.
    private mutating func compact() {
        slots = slots.compactMap { $0 }
        holes.removeAll()
        renumberings += 1
        indexes.removeAll()
        positions.removeAll()
        for (slot, document) in slots.enumerated() {
            if let id = document?.id { positions.insert(id, at: slot) }
        }
    }

    /// Makes the ordered list for readers until the next change (called under the view model's lock).
    mutating func prepareDocuments() {
        if cachedDocuments == nil { cachedDocuments = slots.compactMap { $0 } }
    }

    /// The collection as one JSON array of its items' bytes, or the singular object.
    func encoded(singular isSingular: Bool) -> [UInt8] {
        if isSingular { return singular?.bytes ?? Array("{}".utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(encodedSize(singular: false))
        frozen(singular: false).write(into: &out)
        return out
    }

    /// The items as they stand now, to encode later (`Frozen.write(into:)`): the slots are shared, so taking
    /// them costs nothing now, and the next change copies the slots (not the items) while this is held.
    func frozen(singular isSingular: Bool) -> Frozen {
        isSingular ? Frozen(slots: [], object: singular?.bytes ?? Array("{}".utf8)) : Frozen(slots: slots, object: nil)
    }
}
