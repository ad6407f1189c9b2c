import Domain
import Foundation
import StrictJSON

/// A user's data file read and checked: its resources in the file's order, each item with its id (one
/// given at load to an item that had none), and a hash of the bytes (to tell the server's own write of the
/// file from a person's edit).
///
/// Refused, with one line naming what and where: bytes that are not strict JSON (line and column), a
/// top-level value that is not an object, a key that cannot be a URL path segment or names one of the
/// server's own routes, a value that is neither an array of objects nor an object, an id that is not an
/// integer or a string, two items with the same id.
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
        var documents: [StoredDocument]
    }

    /// The resources in the file's order.
    var resources: [Resource]
    /// A hash of the file's bytes.
    var hash: String
    /// Some item had no id and was given one: the file does not show the state until it is written.
    var assignedIDs = false

    /// Names that are the server's own routes, which a resource may not take.
    static let reservedNames: Set<String> = [
        "db", "events", "healthz", "openapi.json", "index.html", "_livestate", "favicon.ico",
    ]

    /// Reads and checks `bytes`.
    init(bytes: [UInt8], idField: String) throws(DataFileError) {
        hash = Self.hash(bytes)
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes, maxDepth: 256)
        } catch {
            throw DataFileError(
                parse: error, empty: bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
        }
        guard case .object(let top) = value else {
            throw DataFileError("the file must hold a JSON object of resources, not \(value.kindDescription)")
        }
        if top.count > EventTopic.maxDocumentTopics {
            throw DataFileError(
                "the file has \(top.count) resources; LiveState serves at most \(EventTopic.maxDocumentTopics)")
        }
        resources = []
        for (name, member) in top.members {
            guard Self.isPathSegment(name) else {
                throw DataFileError(
                    "key '\(name.prefix(80))' cannot be a resource name: use letters, digits, '-' and '_'")
            }
            guard !Self.reservedNames.contains(name) else {
                throw DataFileError("key '\(name)' is the name of one of LiveState's own routes; rename it")
            }
            switch member {
            case .object(let object):
                resources.append(
                    Resource(name: name, kind: .singular, documents: [StoredDocument(id: nil, object: object)]))
            case .array(let elements):
                let (documents, assigned) = try Self.collection(name, elements, idField: idField)
                assignedIDs = assignedIDs || assigned
                resources.append(Resource(name: name, kind: .collection, documents: documents))
            default:
                throw DataFileError(
                    "'\(name)' holds \(member.kindDescription); a resource is an array of objects or an object")
            }
        }
    }

    /// The items of collection `name`, each with an id (ids given to those without, after the largest).
    private static func collection(_ name: String, _ elements: [JSONValue], idField: String) throws(DataFileError)
        -> (documents: [StoredDocument], assignedIDs: Bool)
    {
        var objects: [JSONObject] = []
        objects.reserveCapacity(elements.count)
        var largest: Int64 = 0
        var stringIDs = 0
        var seen = Set<DocumentID>()
        for (index, element) in elements.enumerated() {
            guard case .object(let object) = element else {
                throw DataFileError("'\(name)'[\(index)] is \(element.kindDescription); a collection holds objects")
            }
            if let raw = object[idField] {
                guard let id = DocumentID(raw) else {
                    throw DataFileError(
                        "'\(name)'[\(index)].\(idField) is \(raw.kindDescription); an id is an integer or a non-empty string"
                    )
                }
                guard seen.insert(id).inserted else {
                    throw DataFileError("'\(name)' has two items with \(idField) \(id.key)")
                }
                if case .integer(let number) = raw { largest = max(largest, number) } else { stringIDs += 1 }
            }
            objects.append(object)
        }
        var documents: [StoredDocument] = []
        documents.reserveCapacity(objects.count)
        var assigned = false
        for var object in objects {
            if let raw = object[idField], let id = DocumentID(raw) {
                documents.append(StoredDocument(id: id, object: object))
                continue
            }
            // An item without an id gets one, the way a POST would give it.
            assigned = true
            let value: JSONValue
            if stringIDs > 0 && largest == 0 {
                var id = DocumentID.random()
                while seen.contains(id) { id = DocumentID.random() }
                value = id.value
            } else {
                largest += 1
                value = .integer(largest)
            }
            object = Self.withID(object, idField: idField, value: value)
            let id = DocumentID(value)!
            seen.insert(id)
            documents.append(StoredDocument(id: id, object: object))
        }
        return (documents, assigned)
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

    /// FNV-1a over the bytes, as 16 hex digits.
    static func hash(_ bytes: [UInt8]) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The whole state as json-server writes its file: `JSON.stringify(db, null, 2)`.
    static func fileBytes(_ resources: [(name: String, kind: DocumentResource.Kind, items: DocumentItems)]) -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: "{".utf8)
        for (index, resource) in resources.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\n  ".utf8)
            JSONValue.writeString(resource.name, into: &out)
            out.append(contentsOf: ": ".utf8)
            switch resource.kind {
            case .singular:
                (resource.items.singular?.object ?? JSONObject()).write(into: &out, indent: 2, depth: 1)
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
                    document.object.write(into: &out, indent: 2, depth: 2)
                }
                out.append(contentsOf: "\n  ]".utf8)
            }
        }
        out.append(contentsOf: resources.isEmpty ? "}".utf8 : "\n}".utf8)
        out.append(UInt8(ascii: "\n"))
        return out
    }

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

/// Why a data file cannot be served: one line for a person.
struct DataFileError: Error, CustomStringConvertible, Sendable {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// The error of bytes StrictJSON refused, with line and column.
    init(parse error: JSONParseError, empty: Bool) {
        switch error {
        case .invalid(_, let message, let line, let column, _):
            description =
                empty
                ? "the file is empty; it must hold a JSON object (for example {\"posts\": []})"
                : "not JSON at line \(line), column \(column): \(message)"
        case .tooDeep(let limit): description = "the JSON nests deeper than \(limit) levels"
        case .tooManyValues(let limit): description = "the JSON holds more than \(limit) values"
        case .numberOutOfRange(let path, let text):
            description = "the number \(text.prefix(40)) \(path.map { "at \($0) " } ?? "")does not fit 64 bits"
        }
    }
}
