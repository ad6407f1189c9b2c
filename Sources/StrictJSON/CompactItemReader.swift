internal import CSimdJSON
import Synchronization

/// Reads the objects of a JSON array many at a time (simdjson, through Sources/CSimdJSON), each as the
/// compact JSON `JSONObject.compactBytes` writes for the value jansson reads from the same text, without
/// building its tree: a data file's collection of hundreds of thousands of items is read this way.
///
/// ```swift
/// let reader = CompactItemReader()
/// let text = Array(#"[{"id": 1, "a": "x"}, {"id": 2}]"#.utf8)
/// let read = reader.read(text, from: 1, idField: "id")
/// read.items[0].bytes    // Array(#"{"id":1,"a":"x"}"#.utf8)
/// read.items[1].id       // .integer(2)
/// read.stop              // .end
/// ```
///
/// NB: an element whose text is not taken here as it stands (a real below 0.001 or an integral one past 9e18,
/// an integer outside `Int64`, a duplicate key, a key with NUL, deeper than `maxDepth`, or anything simdjson
/// refuses) comes with `bytes` nil: the caller reads it with `JSONValue.parsing`, so that what is refused,
/// and the message, stay jansson's. simdjson checks the whole text of the elements it reads, as jansson does.
/// A reader may be handed to another thread (a load reads the next items while it stores these); its reads
/// take turns.
public final class CompactItemReader: Sendable {
    /// One element of the array.
    public struct Item: Sendable {
        /// Its first byte and the byte just past its last, as offsets in the bytes read.
        public var start: Int
        public var end: Int
        /// The offset of the `,` or `]` after it.
        public var next: Int
        /// Its compact JSON, or nil: read it with `JSONValue.parsing(_:from:maxDepth:)` from `start`.
        public var bytes: [UInt8]?
        /// Its id member (when `bytes` are given).
        public var id: ID
        /// What a 2-space indent adds to `bytes` at depth 2 (`JSONValue.indentationSize(indent: 2, depth: 2)`).
        public var indentation: Int
    }

    /// An item's id member.
    public enum ID: Sendable, Equatable {
        /// None, or null.
        case none
        case integer(Int64)
        /// A non-empty string.
        case string(String)
        /// A value that is not an id (an empty string, a boolean, an array, an object).
        case other
    }

    /// Why a read stopped after its items.
    public enum Stop: Sendable, Equatable {
        /// At the bytes asked for: more elements follow; read again after the last item's `next`.
        case limit
        /// The bytes end before the next element and what follows it are whole: read again with more bytes.
        case incomplete
        /// The next element is not read here (not an object, larger than the bytes asked for, malformed).
        case other
        /// The last item is followed by `]`.
        case end
    }

    /// The C reader and its buffers, one read at a time.
    private let reader: Mutex<OpaquePointer>

    /// A reader and its buffers (simdjson's parser keeps its own, grown to the largest read).
    public init() {
        guard let reader = csimdjson_items_create() else { fatalError("out of memory") }
        self.reader = Mutex(reader)
    }

    deinit { reader.withLock { csimdjson_items_destroy($0) } }

    /// Reads the array's objects from `start` in `bytes` (just after its `[` or a `,`), about `maxBytes` of
    /// their text at a time, each at most `maxDepth` levels deep below the item; `idField` names the id.
    public func read(
        _ bytes: [UInt8], from start: Int, maxBytes: Int = 1 << 20, idField: String,
        maxDepth: Int = JSONValue.defaultMaxDepth
    ) -> (items: [Item], stop: Stop) {
        precondition(start >= 0 && start <= bytes.count, "the start is within the bytes")
        return reader.withLock { reader in
            Self.read(reader, bytes, from: start, maxBytes: maxBytes, idField: idField, maxDepth: maxDepth)
        }
    }

    private static func read(
        _ reader: OpaquePointer, _ bytes: [UInt8], from start: Int, maxBytes: Int, idField: String, maxDepth: Int
    ) -> (items: [Item], stop: Stop) {
        var stop = CSIMDJSON_STOP_INCOMPLETE
        var field = Array(idField.utf8)
        let count = bytes.withUnsafeBufferPointer { input in
            field.withUnsafeMutableBufferPointer { name in
                csimdjson_items_read(
                    reader, input.baseAddress, input.count, start, maxBytes, name.baseAddress, name.count, maxDepth,
                    &stop)
            }
        }
        guard count >= 0 else { fatalError("out of memory") }
        var items: [Item] = []
        items.reserveCapacity(count)
        let output = csimdjson_items_output(reader)
        for index in 0..<count {
            let item = csimdjson_items_item(reader, index)!.pointee
            var read = Item(start: item.start, end: item.end, next: item.next, bytes: nil, id: .none, indentation: 0)
            if item.written != 0, let output {
                read.bytes = Array(
                    UnsafeBufferPointer(start: output + item.output_start, count: item.output_end - item.output_start))
                read.indentation = item.indentation
                switch item.id_kind {
                case CSIMDJSON_ID_INTEGER: read.id = .integer(item.id_integer)
                case CSIMDJSON_ID_STRING:
                    read.id = .string(
                        String(
                            decoding: UnsafeBufferPointer(
                                start: output + item.id_start, count: item.id_end - item.id_start),
                            as: UTF8.self))
                case CSIMDJSON_ID_OTHER: read.id = .other
                default: read.id = .none
                }
            }
            items.append(read)
        }
        return (items, Self.stop(stop))
    }

    private static func stop(_ stop: csimdjson_stop) -> Stop {
        switch stop {
        case CSIMDJSON_STOP_LIMIT: .limit
        case CSIMDJSON_STOP_OTHER: .other
        case CSIMDJSON_STOP_END: .end
        default: .incomplete
        }
    }
}
