import Domain
import StrictJSON

extension DataFileContent {
    /// How many bytes of a collection's items `CompactItemReader` reads at once.
    ///
    /// NB: simdjson's parser holds about 14 times the text it reads (its tape, strings and indexes), two
    /// readers are at work, and a load's peak memory is weighed against the file's size (2.5×).
    static let readBytes = 256 << 10

    /// After how many items a collection's room is made for the rest (`expectedItems`).
    static let sampledItems = 1024

    /// How many items a collection may hold when its first `sampledItems` took `sampled` of the `bytes`
    /// from its start to the end of the file: as many as that pace would fit, and at most one per 128 bytes
    /// (a collection of small items after larger ones grows from there as before).
    ///
    /// NB: `bytes` comes from the file's size before it was read, which a write meanwhile may have changed:
    /// it is taken within 0 and the largest file read.
    static func expectedItems(_ bytes: Int, sampled: Int) -> Int {
        let bytes = min(max(bytes, 0), DataFileService.maxFileBytes)
        return min(bytes / 128, Int((Double(sampledItems) * Double(bytes) / Double(max(sampled, 1))).rounded(.up)))
    }

    /// A collection's element as `itemByItem` reads it.
    enum Element {
        /// An object read ahead in bulk, with its compact bytes.
        case compact(CompactItemReader.Item, [UInt8])
        /// A value jansson read.
        case tree(JSONValue)
    }

    /// The resources of the file `next` gives a part at a time, read one item at a time, and the hash of its
    /// bytes; nil when the file is refused anywhere.
    ///
    /// NB: a 100 MB file parsed whole held the file, jansson's tree of it and the converted values at once
    /// (8× the file at the peak); read this way, only the stored items, a part of the file and one item's
    /// trees are held. jansson parses each value (a resource's key, a singular object, a collection's item);
    /// between them only whitespace and the top two levels' punctuation (`{ : , }` and `[ , ]`) are read
    /// here. A value cut by the end of a part fails to parse and is parsed again once the next part is read
    /// (a cut object or string never parses; a cut number is refused anyway, as an item or a key). Any fault,
    /// of syntax or of content, gives nil, so that the whole-text read names it exactly as before.
    ///
    /// NB: a collection's objects are read many at a time by `CompactItemReader` (simdjson), each straight to
    /// the compact bytes it is stored as, without its tree: jansson's parse, the tree and the writer were
    /// three quarters of a 100 MB file's load. An item it leaves (a real, a duplicate key, anything it does
    /// not take as written) is read by jansson as before, so the rules and the messages stay jansson's.
    static func itemByItem(_ next: () throws(DataFileError) -> [UInt8], idField: String, size: Int? = nil)
        throws(DataFileError) -> (
            resources: [Resource], values: [DataFileValue], order: [String], assignedIDs: Bool,
            renamedIDs: [RenamedID], hash: String
        )?
    {
        // The bytes read and not yet passed (those before `cursor` are dropped as the next part comes).
        var bytes: [UInt8] = []
        var cursor = 0
        // How many of the file's bytes came before `bytes`.
        var passed = 0
        var ended = false
        // NB: jansson takes a raw NUL as the end of its input; the whole-text read refuses it.
        let hasher = DataFileHasher()
        let reader = CompactItemReader()
        // A collection's items read ahead of the cursor (`element`), the next first, and the read of the items
        // after them under way on another thread, of the buffer that `buffers` counts.
        var ahead: ArraySlice<CompactItemReader.Item> = []
        var readAhead: DataFileReadAhead?
        let aheadReader = CompactItemReader()
        var buffers = 0
        /// Reads the next part after the bytes not yet passed; false at the end of the file.
        func more() throws(DataFileError) -> Bool {
            guard !ended else { return false }
            let part = try next()
            hasher.add(part)
            if part.isEmpty {
                ended = true
                return false
            }
            passed += cursor
            if cursor == bytes.count {
                bytes = part
            } else {
                bytes.removeSubrange(..<cursor)
                bytes.append(contentsOf: part)
            }
            cursor = 0
            // NB: the offsets of the items read ahead are the old bytes'.
            ahead.removeAll()
            buffers += 1
            return true
        }
        /// Moves past whitespace; false when the file ends there.
        func skipSpace() throws(DataFileError) -> Bool {
            while true {
                while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
                if cursor < bytes.count { return true }
                guard try more() else { return false }
            }
        }
        /// Moves past whitespace, then past `byte` if it is next (true) or not at all (false).
        func take(_ byte: UInt8) throws(DataFileError) -> Bool {
            guard try skipSpace(), bytes[cursor] == byte else { return false }
            cursor += 1
            return true
        }
        /// The value after the cursor, the cursor past it; nil if jansson refuses it.
        func value(depth: Int) throws(DataFileError) -> JSONValue? {
            while true {
                if try skipSpace(),
                    let (value, end) = try? JSONValue.parsing(bytes, from: cursor, maxDepth: Self.maxDepth - depth)
                {
                    cursor = end
                    return value
                }
                // NB: at least twice the bytes pending before the next try, so that a value of many parts (a
                // large singular resource) is parsed a few times, not once per part.
                let pending = bytes.count - cursor
                guard try more() else { return nil }
                while bytes.count - cursor < 2 * pending, try more() {}
            }
        }
        /// The collection's next element: its compact bytes as read ahead, or its value as jansson reads it;
        /// nil if refused.
        func element() throws(DataFileError) -> Element? {
            guard try skipSpace() else { return nil }
            if ahead.first?.start != cursor {
                ahead = []
                while true {
                    var read = ([CompactItemReader.Item](), CompactItemReader.Stop.incomplete)
                    if let pending = readAhead, pending.buffer == buffers, pending.start <= cursor {
                        read = pending.wait()
                    }
                    readAhead = nil
                    if read.0.first?.start != cursor {
                        read = reader.read(
                            bytes, from: cursor, maxBytes: Self.readBytes, idField: idField, maxDepth: Self.maxDepth - 2
                        )
                    }
                    if read.0.isEmpty, read.1 == .incomplete, try more() { continue }
                    ahead = read.0[...]
                    if read.1 == .limit, let last = read.0.last {
                        readAhead = DataFileReadAhead(
                            aheadReader, bytes, from: last.next + 1, buffer: buffers, idField: idField,
                            maxDepth: Self.maxDepth - 2)
                    }
                    break
                }
            }
            if let item = ahead.first, item.start == cursor {
                ahead.removeFirst()
                if let compact = item.bytes {
                    cursor = item.end
                    return .compact(item, compact)
                }
            }
            return try value(depth: 2).map(Element.tree)
        }
        // A UTF-8 byte order mark (an editor's) is no part of the JSON (RFC 8259, 8.1), as with json-server.
        if try skipSpace(), bytes[cursor...].starts(with: Self.byteOrderMark) { cursor += Self.byteOrderMark.count }
        guard try take(UInt8(ascii: "{")) else { return nil }
        var resources: [Resource] = []
        var values: [DataFileValue] = []
        var order: [String] = []
        var names = Set<String>()
        var assignedIDs = false
        var renamedIDs: [RenamedID] = []
        if try !take(UInt8(ascii: "}")) {
            repeat {
                guard case .string(let name)? = try value(depth: 1), names.insert(name).inserted,
                    name == DataFileValue.schemaKey || (try? check(name)) != nil, try take(UInt8(ascii: ":"))
                else { return nil }
                order.append(name)
                if name == DataFileValue.schemaKey {
                    guard let member = try value(depth: 1) else { return nil }
                    values.append(DataFileValue(name: name, value: member))
                } else if try take(UInt8(ascii: "[")) {
                    var collection = Collection(name: name, idField: idField)
                    // A value resource's elements: an array whose first element is not an object. NB: one whose
                    // later element is not gives nil (`add` refuses it), and the whole-text read takes it.
                    var listed: [JSONValue]?
                    let begun = passed + cursor
                    if try !take(UInt8(ascii: "]")) {
                        var index = 0
                        repeat {
                            if index == Self.sampledItems, let size, passed + cursor > begun {
                                collection.expect(Self.expectedItems(size - begun, sampled: passed + cursor - begun))
                            }
                            // NB: a value resource's elements are values, not items read ahead.
                            let read = listed == nil ? try element() : try value(depth: 2).map(Element.tree)
                            switch read {
                            case nil:
                                return nil
                            case .compact(let item, let compact):
                                if (try? collection.add(compact: item, bytes: compact, at: index)) == nil { return nil }
                            case .tree(let element):
                                if index == 0, !isObject(element) { listed = [] }
                                if listed != nil {
                                    listed?.append(element)
                                } else if (try? collection.add(element, at: index)) == nil {
                                    return nil
                                }
                            }
                            index += 1
                        } while try take(UInt8(ascii: ","))
                        guard try take(UInt8(ascii: "]")) else { return nil }
                    }
                    if let listed {
                        values.append(DataFileValue(name: name, value: .array(listed)))
                        continue
                    }
                    let finished = collection.resource()
                    assignedIDs = assignedIDs || finished.assignedIDs
                    renamedIDs += finished.renamed
                    resources.append(finished.resource)
                } else {
                    guard case .object(let object)? = try value(depth: 1) else { return nil }
                    resources.append(Self.singular(name, object))
                }
            } while try take(UInt8(ascii: ","))
            guard try take(UInt8(ascii: "}")) else { return nil }
        }
        guard try !skipSpace() else { return nil }
        let (hash, hasNUL) = hasher.finish()
        guard !hasNUL else { return nil }
        return (resources, values, order, assignedIDs, renamedIDs, hash)
    }

}
