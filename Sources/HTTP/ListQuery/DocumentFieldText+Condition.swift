package import Bitsets
package import StrictJSON

extension DocumentFieldText {
    /// The text of one field's values as json-server v1's `_where` reads them (`conditionValue(in:at:)` of
    /// each item): null is a value, each distinct value keeps its type and its number, and each item how
    /// many of the path's leading fields hold an object.
    package init(conditionValues: [(value: JSONValue?, depth: UInt8)]) {
        self.init(values: conditionValues.map(\.value), keepsNull: true, depths: conditionValues.map(\.depth))
    }

    /// The value at `path` as `_where` reads it, member by member (an array's element is no member), and how
    /// many of the path's leading fields hold an object (the value itself counted when it is one).
    package static func conditionValue(in object: JSONObject, at path: [String]) -> (value: JSONValue?, depth: UInt8) {
        var current = object
        var depth: UInt8 = 0
        for (level, key) in path.enumerated() {
            guard let value = current[key] else { return (nil, depth) }
            guard case .object(let members) = value else { return (level == path.count - 1 ? value : nil, depth) }
            depth &+= 1
            guard level < path.count - 1 else { return (value, depth) }
            current = members
        }
        return (nil, depth)
    }

    /// Whether each distinct value passes v1's operator `name` with `operand`, as `DocumentWhere` tests one
    /// value: strict equality by type and text (a number by its value, text by its bytes), `lt`… by number or,
    /// text against text, by code units, `contains`… on text lowercased as JavaScript lowercases, by its bytes;
    /// each a pass over the text or the numbers in C, in any script.
    func marks(_ name: String, _ operand: JSONValue, meter: inout ListQuery.Meter) throws(HTTPError) -> [Bool] {
        var marked = [Bool](repeating: false, count: distinctCount)
        switch name {
        case "eq", "ne", "in":
            var candidates = [operand]
            if name == "in", case .array(let elements) = operand { candidates = elements }
            for candidate in candidates { try markEqual(candidate, into: &marked, meter: &meter) }
            if name == "ne" { Bitset.invert(&marked) }
        case "lt", "lte", "gt", "gte":
            try meter.check()
            markRelation(name, operand, into: &marked)
        default:
            let operation: DocumentQuery.Operator =
                name == "contains" ? .contains : name == "startsWith" ? .startsWith : .endsWith
            var found = [Bool](repeating: false, count: distinctCount)
            try mark(operation, Array(operand.javaScriptString.utf8), into: &found, meter: &meter)
            Bitset.combine(&found, strings, intersect: true)
            Bitset.combine(&marked, found, intersect: false)
        }
        return marked
    }

    /// Marks the values strictly equal to `candidate`.
    private func markEqual(_ candidate: JSONValue, into marked: inout [Bool], meter: inout ListQuery.Meter)
        throws(HTTPError)
    {
        let type = ValueType(candidate)
        switch candidate {
        case .string(let text):
            var found = [Bool](repeating: false, count: distinctCount)
            try mark(.equal, Array(text.utf8), into: &found, meter: &meter)
            Bitset.combine(&found, strings, intersect: true)
            Bitset.combine(&marked, found, intersect: false)
        case .integer, .real:
            guard let number = DocumentWhere.javaScriptNumber(candidate) else { return }
            try meter.check()
            let equal = Bitset.marks(
                numbers: numbers, only: isNumber, against: number, less: false, equal: true, greater: false)
            Bitset.combine(&marked, equal, intersect: false)
        case .bool, .null:
            // NB: the few values of that text (a string "true" beside the boolean) told apart by their type.
            var found = [Bool](repeating: false, count: distinctCount)
            try mark(.equal, Array(candidate.javaScriptString.utf8), into: &found, meter: &meter)
            for place in Bitset(flags: found).places where types[place] == type { marked[place] = true }
        case .array, .object: return
        }
    }

    /// Marks the values that order against `operand` as `name` asks, as JavaScript's `<` orders them: text
    /// against text by code units (from the bytes, in C), any other pair as numbers.
    private func markRelation(_ name: String, _ operand: JSONValue, into marked: inout [Bool]) {
        // NB: which orders pass, read once (a loop over 100,000 values in a debug build that compared `name`
        // at each cost about as much as the rest of it).
        let (less, equal, greater) =
            switch name {
            case "lt": (true, false, false)
            case "lte": (true, true, false)
            case "gt": (false, false, true)
            default: (false, true, true)
            }
        let number = DocumentWhere.javaScriptNumber(operand)
        guard case .string(let operandText) = operand else {
            // A number (or what JavaScript reads as one) against each value's number, in C.
            guard let number else { return }
            marked = Bitset.marks(numbers: numbers, against: number, less: less, equal: equal, greater: greater)
            return
        }
        var found = ByteText.marks(
            orderingAgainst: Array(operandText.utf8), in: text, starts: starts, less: less, equal: equal,
            greater: greater)
        Bitset.combine(&found, strings, intersect: true)
        if let number {
            // NB: a value that is not text against text that is a number: as numbers (NaN: none passes).
            var others = strings
            Bitset.invert(&others)
            let byNumber = Bitset.marks(
                numbers: numbers, only: others, against: number, less: less, equal: equal, greater: greater)
            Bitset.combine(&found, byNumber, intersect: false)
        }
        marked = found
    }
}

extension DocumentWhere {
    /// The paths of the fields whose texts (`DocumentFieldText(conditionValues:)`) answer the condition: each
    /// field's, and an object's whose conditions name no field.
    package var textPaths: [[String]] {
        var paths: [[String]] = []
        collect(prefix: [], into: &paths)
        var seen: Set<[String]> = []
        return paths.filter { seen.insert($0).inserted }
    }

    private func collect(prefix: [String], into paths: inout [[String]]) {
        switch self {
        case .all(let parts), .any(let parts): for part in parts { part.collect(prefix: prefix, into: &paths) }
        case .not(let inner): inner.collect(prefix: prefix, into: &paths)
        case .field(let key, _): paths.append(prefix + [key])
        case .nested(let key, let inner):
            let before = paths.count
            inner.collect(prefix: prefix + [key], into: &paths)
            if paths.count == before { paths.append(prefix + [key]) }
        }
    }

    /// Whether each of `count` items passes, from the texts of `textPaths` (by path), within `meter`'s
    /// budget: each field's operators mark its distinct values, each item takes its value's mark, and the
    /// fields' sets of items are combined a word at a time (`Bitset`); nil when a text is missing.
    package func passing(count: Int, texts: [[String]: DocumentFieldText], meter: inout ListQuery.Meter)
        throws(HTTPError) -> [Bool]?
    {
        try passingSet(count: count, texts: texts, meter: &meter)?.flags
    }

    /// `passing` as a set of the items' places.
    package func passingSet(count: Int, texts: [[String]: DocumentFieldText], meter: inout ListQuery.Meter)
        throws(HTTPError) -> Bitset?
    {
        try passing(prefix: [], count: count, texts: texts, meter: &meter)
    }

    private func passing(
        prefix: [String], count: Int, texts: [[String]: DocumentFieldText], meter: inout ListQuery.Meter
    ) throws(HTTPError) -> Bitset? {
        try meter.check()
        switch self {
        case .all(let parts), .any(let parts):
            let all: Bool
            if case .all = self { all = true } else { all = false }
            var result: Bitset?
            for part in parts {
                guard let passing = try part.passing(prefix: prefix, count: count, texts: texts, meter: &meter)
                else { return nil }
                if result == nil {
                    result = passing
                } else if all {
                    result?.formIntersection(passing)
                } else {
                    result?.formUnion(passing)
                }
            }
            return result ?? Bitset(size: count, full: all)
        case .not(let inner):
            guard var result = try inner.passing(prefix: prefix, count: count, texts: texts, meter: &meter)
            else { return nil }
            result.invert()
            return result
        case .field(let key, let operators):
            guard let text = texts[prefix + [key]] else { return nil }
            var marked = [Bool](repeating: true, count: text.distinctCount)
            for (name, operand) in operators {
                Bitset.combine(&marked, try text.marks(name, operand, meter: &meter), intersect: true)
            }
            try meter.check()
            return Bitset(values: text.values, marked: marked)
        case .nested(let key, let inner):
            // An item whose field is not an object passes, whatever the conditions on its members.
            let path = prefix + [key]
            var paths: [[String]] = []
            inner.collect(prefix: path, into: &paths)
            guard let text = texts[paths.first ?? path],
                var result = try inner.passing(prefix: path, count: count, texts: texts, meter: &meter)
            else { return nil }
            result.formUnion(text.shallower(than: path.count))
            return result
        }
    }
}
