import Domain
import Storage
import StrictJSON

/// A data file's resources taken back before their newest entries, from the items before them that its
/// SQLite journal keeps, so that a restart sends those entries through the view models again, oldest first,
/// and makes their events with the ids and data the earlier run gave them: a `Last-Event-ID` from before the
/// restart (a clean stop or `kill -9`) then resumes as if the server had not stopped. The same walk as
/// `DocumentRewind` (a shared database's), over the file's own order: a new item goes to the end of its
/// collection, a changed one keeps its place, and a delete's item before names the item before it.
///
/// Each entry's item before (`DocumentView.itemBefore`): `null` (the entry made the item), `[item]` (it
/// changed it in its place, or a singular resource's object), `[after,item]` (it deleted it; `after` the id
/// text of the item then before it, null: first). Walking from the resources as they are now (the file with
/// every entry applied), newest entry first, an entry is undone by putting that item back. The walk stops at
/// `count` entries, and before an entry it cannot undo exactly: one without an item before (an older
/// server's, or one past the journal's floor), one of a resource that is not served, one whose item is not
/// what the items after it say. Only the collections an entry touches are taken apart (an id → neighbours
/// list), so a start on a large file pays for them alone.
///
/// ```swift
/// let rewind = DataFileRewind(resources, recent: try journal.recent(limit: 1024, bytes: 1 << 25), count: 1024,
///                             idField: "id")
/// // serve rewind.resources, then send rewind.entries (oldest first) into the view models
/// ```
struct DataFileRewind {
    /// The resources before `entries`, in the order given.
    var resources: [DataFileContent.Resource]
    /// The entries undone, oldest first.
    var entries: [JournalEntry]

    /// `resources` taken back before as many of `recent` (newest first) as can be undone exactly, at most
    /// `count`; an item's id is read from `idField`.
    init(_ resources: [DataFileContent.Resource], recent: [JournalRow], count: Int, idField: String) {
        let indices = Dictionary(resources.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        var lists: [Int: Chain] = [:]
        var singulars: [Int: StoredDocument] = [:]
        var undone: [JournalEntry] = []
        for row in recent.prefix(max(0, count)) {
            guard let before = row.before, let index = indices[row.change.collection] else { break }
            let document = row.change.document.map { Array($0.utf8) }
            guard let form = Before(before) else { break }
            if resources[index].kind == .singular {
                let now = singulars[index] ?? resources[index].documents.first
                guard row.change.id == nil, now?.bytes == document, case .inPlace(let item) = form,
                    let object = try? DataFileService.object(item)
                else { break }
                singulars[index] = StoredDocument(id: nil, object: object)
            } else {
                var chain = lists.removeValue(forKey: index) ?? Chain(resources[index].documents)
                defer { lists[index] = chain }
                guard let key = row.change.id, chain.undo(key, after: document, before: form, idField: idField)
                else { break }
            }
            undone.append(JournalEntry(seq: row.seq, change: row.change))
        }
        var result = resources
        for (index, chain) in lists where undone.contains(where: { $0.change.collection == resources[index].name }) {
            result[index].documents = chain.documents
            result[index].indentation = nil
        }
        for (index, object) in singulars {
            result[index].documents = [object]
            result[index].indentation = nil
        }
        self.resources = result
        entries = undone.reversed()
    }

    /// An entry's item before it, as its text says.
    private enum Before {
        /// None: the entry made the item (at the end of its collection).
        case none
        /// The item (its JSON), in the place the entry left it.
        case inPlace(String)
        /// The item the entry deleted, and the id text of the item then before it (nil: it was first).
        case deleted(String, after: String?)

        /// Reads `text`; nil when it is none of the forms.
        init?(_ text: String) {
            if text == "null" {
                self = .none
                return
            }
            let bytes = Array(text.utf8)
            guard bytes.count > 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
            let inner = bytes[1..<bytes.count - 1]
            if inner.first == UInt8(ascii: "{") {
                self = .inPlace(String(decoding: inner, as: UTF8.self))
                return
            }
            // The place: `null` or a JSON string, up to the comma after it.
            let end: Int
            if inner.starts(with: Array("null".utf8)) {
                end = inner.startIndex + 4
            } else {
                guard inner.first == UInt8(ascii: "\"") else { return nil }
                var at = inner.startIndex + 1
                while at < inner.endIndex, inner[at] != UInt8(ascii: "\"") {
                    at += inner[at] == UInt8(ascii: "\\") ? 2 : 1
                }
                end = at + 1
            }
            guard end < inner.endIndex, inner[end] == UInt8(ascii: ","), inner.index(after: end) < inner.endIndex
            else { return nil }
            let place = Array(inner[inner.startIndex..<end])
            let item = String(decoding: inner[(end + 1)...], as: UTF8.self)
            if place == Array("null".utf8) {
                self = .deleted(item, after: nil)
            } else if case .string(let key)? = try? JSONValue(parsing: place, maxDepth: 1) {
                self = .deleted(item, after: key)
            } else {
                return nil
            }
        }
    }

    /// A collection's items as a list of ids, each linked to its neighbours, which an undo changes in place.
    private struct Chain {
        var items: [String: StoredDocument] = [:]
        var next: [String: String] = [:]
        var previous: [String: String] = [:]
        var first: String?
        var last: String?

        init(_ documents: [StoredDocument]) {
            items.reserveCapacity(documents.count)
            for document in documents {
                guard let key = document.id?.key, items.updateValue(document, forKey: key) == nil else { continue }
                if let last {
                    next[last] = key
                    previous[key] = last
                } else {
                    first = key
                }
                last = key
            }
        }

        /// Undoes the entry that left item `key` as `after` (its JSON; nil: deleted), given the item `before`
        /// it; false (nothing changed) when the items now are not what the entry left.
        mutating func undo(_ key: String, after: [UInt8]?, before: Before, idField: String) -> Bool {
            guard items[key]?.bytes == after else { return false }
            switch before {
            case .none:
                // A delete of no item changed nothing.
                guard after != nil else { return true }
                // A new item went to the end, and every later entry is undone: it is the last.
                guard last == key else { return false }
                remove(key)
            case .inPlace(let body):
                guard after != nil, let document = Self.document(key, body, idField: idField) else { return false }
                items[key] = document
            case .deleted(let body, let before):
                guard after == nil, before.map({ items[$0] != nil }) ?? true,
                    let document = Self.document(key, body, idField: idField)
                else { return false }
                insert(key, document, after: before)
            }
            return true
        }

        /// The items in order.
        var documents: [StoredDocument] {
            var result: [StoredDocument] = []
            result.reserveCapacity(items.count)
            var at = first
            while let key = at, let document = items[key] {
                result.append(document)
                at = next[key]
            }
            return result
        }

        private mutating func remove(_ key: String) {
            let (before, after) = (previous.removeValue(forKey: key), next.removeValue(forKey: key))
            if let before { next[before] = after } else { first = after }
            if let after { previous[after] = before } else { last = before }
            items[key] = nil
        }

        private mutating func insert(_ key: String, _ document: StoredDocument, after before: String?) {
            let after = before.map { next[$0] } ?? first
            previous[key] = before
            next[key] = after
            if let before { next[before] = key } else { first = key }
            if let after { previous[after] = key } else { last = key }
            items[key] = document
        }

        private static func document(_ key: String, _ body: String, idField: String) -> StoredDocument? {
            guard let object = try? DataFileService.object(body) else { return nil }
            return StoredDocument(id: DocumentID(pathSegment: key).withValue(object[idField]), object: object)
        }
    }
}
