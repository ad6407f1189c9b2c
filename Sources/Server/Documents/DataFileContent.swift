import Deflate
import Domain
import Foundation
import StrictJSON

/// A user's data file read and checked: its resources in the file's order, each item with its id (one
/// given at load to an item that had none), and a hash of the bytes (to tell the server's own write of the
/// file from a person's edit).
///
/// Besides the resources it keeps the members that hold no items (`values`): an array whose elements are not
/// all objects (a value resource, served read-only) and json-server's `$schema` line (not served), and the
/// order of every key, so that the file is written back with all of them where they were.
///
/// Refused, with one line naming what and where: bytes that are not strict JSON (line and column), a
/// top-level value that is not an object, a key that cannot be a URL path segment or names one of the
/// server's own routes, a key holding a string, number, boolean or null (`$schema` aside), an id that is not
/// an integer or a string. An item without an id, or with the id of an earlier item of its collection, gets
/// a new one (`Collection`).
///
/// ```swift
/// let content = try DataFileContent(bytes: Array(text.utf8), idField: "id")
/// content.resources.first?.name   // "posts"
/// ```
struct DataFileContent: Sendable {
    /// One resource: its name, kind and items.
    struct Resource: Sendable {
        var name: String
        var kind: DocumentResource.Kind
        var documents: [StoredDocument] {
            didSet { filed = nil }
        }
        /// What the file's indentation adds to the items' compact JSON (`JSONValue.indentationSize`),
        /// summed from their trees as they were read; nil: counted from their bytes instead.
        var indentation: Int?
        /// A collection's `documents` filed by id as the load read them; nil (and dropped when `documents`
        /// change): filed from `documents` when served.
        var filed: DocumentItemsLoad?

        /// The resource's view model, holding its items.
        func model() -> DocumentResource {
            guard let filed else {
                return DocumentResource(name: name, kind: kind, documents: documents, indentation: indentation)
            }
            return DocumentResource(
                name: name, kind: kind, items: DocumentItems(loaded: filed, indentation: indentation))
        }
    }

    /// The resources in the file's order.
    var resources: [Resource]
    /// The members that hold no items (value resources, `$schema`), in the file's order.
    var values: [DataFileValue] = []
    /// Every top-level key, in the file's order.
    var order: [String] = []
    /// A hash of the file's bytes.
    var hash: String
    /// Some item had no id, or an earlier item's, and was given one: the file does not show the state until
    /// it is written.
    var assignedIDs = false
    /// The items given a new id because an earlier item of their collection had theirs, in the file's order.
    var renamedIDs: [RenamedID] = []

    /// Names that are the server's own routes, which a resource may not take.
    static let reservedNames: Set<String> = [
        "db", "events", "healthz", "openapi.json", "index.html", "_livestate", "favicon.ico", "__rules",
    ]

    /// How deep the file's JSON may nest, its top object counted.
    static let maxDepth = 256

    /// How many bytes of a file are read at once (`init(parts:whole:idField:)`).
    ///
    /// NB: 1 MiB, not 4: the part being read and those waiting for the hash are held beside every item read
    /// so far, and a 100 MB file's peak memory is weighed against its size (2.5×).
    static let partSize = 1 << 20

    /// Reads and checks `bytes`.
    init(bytes: [UInt8], idField: String) throws(DataFileError) {
        var unread = [bytes]
        try self.init(parts: { () throws(DataFileError) in unread.popLast() ?? [] }, whole: { bytes }, idField: idField)
    }

    /// Reads and checks the bytes `next` gives a part at a time (an empty part: the end), so that a large file
    /// is never held whole; `whole` gives them all again, asked only when the file is refused, to name the
    /// fault. `size`: how many bytes the parts hold in all, when known (a collection's room is made from it).
    init(
        parts next: () throws(DataFileError) -> [UInt8], whole: () throws(DataFileError) -> [UInt8],
        idField: String, size: Int? = nil
    ) throws(DataFileError) {
        if let read = try Self.itemByItem(next, idField: idField, size: size) {
            hash = read.hash
            resources = read.resources
            values = read.values
            order = read.order
            assignedIDs = read.assignedIDs
            renamedIDs = read.renamedIDs
            return
        }
        let bytes = try whole()
        hash = Self.hash(bytes)
        // The file is refused somewhere (or nests past what the item-by-item read takes): the whole text is
        // read again as one value, which names the first fault as a person reads the file.
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            throw DataFileError("the file is UTF-16 text; save it as UTF-8 (JSON files are UTF-8)")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Self.withoutByteOrderMark(bytes), maxDepth: Self.maxDepth)
        } catch {
            throw DataFileError(parse: error, empty: bytes.allSatisfy(Self.isSpace))
        }
        guard case .object(let top) = value else {
            throw DataFileError("the file must hold a JSON object of resources, not \(value.kindDescription)")
        }
        resources = []
        for (name, member) in top.members {
            order.append(name)
            // NB: json-server skips `$schema` whatever it holds; it is kept for the file, never served.
            if name == DataFileValue.schemaKey {
                values.append(DataFileValue(name: name, value: member))
                continue
            }
            try Self.check(name)
            switch member {
            case .object(let object):
                resources.append(Self.singular(name, object))
            case .array(let elements) where !elements.allSatisfy(Self.isObject):
                values.append(DataFileValue(name: name, value: member))
            case .array(let elements):
                var collection = Collection(name: name, idField: idField)
                for (index, element) in elements.enumerated() { try collection.add(element, at: index) }
                let finished = collection.resource()
                assignedIDs = assignedIDs || finished.assignedIDs
                renamedIDs += finished.renamed
                resources.append(finished.resource)
            default:
                throw DataFileError(Self.notServable(name, member))
            }
        }
    }

    /// UTF-8's byte order mark, which some editors write at the start of a file.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `bytes` without a UTF-8 byte order mark at their start: JSON files read as json-server reads them.
    static func withoutByteOrderMark(_ bytes: [UInt8]) -> [UInt8] {
        bytes.starts(with: byteOrderMark) ? Array(bytes.dropFirst(byteOrderMark.count)) : bytes
    }

    /// Why the key `name` holding `value` (a string, number, boolean or null) cannot be served.
    private static func notServable(_ name: String, _ value: JSONValue) -> String {
        "'\(name.prefix(80))' holds \(value.kindDescription); each top-level key must hold an array (of objects: a"
            + " collection; of other values: a read-only list) or an object"
    }

    /// Whether `value` is an object: an array of nothing else is a collection.
    static func isObject(_ value: JSONValue) -> Bool {
        if case .object = value { return true }
        return false
    }

    /// The singular resource `name` holding `object`, with its indentation at depth 1.
    static func singular(_ name: String, _ object: JSONObject) -> Resource {
        Resource(
            name: name, kind: .singular, documents: [StoredDocument(id: nil, object: object)],
            indentation: JSONValue.object(object).indentationSize(indent: 2, depth: 1))
    }

    /// Whether `byte` is JSON's whitespace (RFC 8259: space, tab, line feed, carriage return).
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// Refuses a key that cannot be a resource's name.
    static func check(_ name: String) throws(DataFileError) {
        guard Self.isPathSegment(name) else {
            throw DataFileError(
                "key '\(name.prefix(80))' cannot be a resource name: use letters, digits, '-' and '_'")
        }
        guard !Self.reservedNames.contains(name) else {
            throw DataFileError("key '\(name)' is the name of one of LiveState's own routes; rename it")
        }
    }

    /// `object` with `idField` set to `value`: first when it had none (as json-server puts it), else in place.
    static func withID(_ object: JSONObject, idField: String, value: JSONValue) -> JSONObject {
        if object[idField] != nil {
            var copy = object
            copy[idField] = value
            return copy
        }
        var result = JSONObject()
        result[idField] = value
        for (key, member) in object.members { result[key] = member }
        return result
    }

    /// Whether `name` is one URL path segment LiveState takes as a resource name.
    static func isPathSegment(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 128
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }

    /// The bytes' fingerprint: their CRC-32, Adler-32 and length (`Checksum.fingerprint`, vectorised).
    ///
    /// NB: not FNV-1a, which took a byte at a time and cost a 100 MB file's load 0.15 s of CPU. A journal
    /// marked by a build that used it is recognised at start by `DataFileLegacyHash`.
    static func hash(_ bytes: [UInt8]) -> String { Checksum.fingerprint(bytes) }

    /// The file a missing data file is created with: a small example, as json-server's.
    static let example = """
        {
          "posts": [
            {
              "id": 1,
              "title": "json-server",
              "author": "typicode"
            }
          ],
          "comments": [
            {
              "id": 1,
              "body": "some comment",
              "postId": 1
            }
          ],
          "profile": {
            "name": "typicode"
          }
        }

        """
}
