import Bitsets
import Foundation
package import StrictJSON

/// json-server v1's `_where`: a JSON object whose members are all conditions on an item, as v1's
/// `matchesWhere` reads it.
///
/// - `"field": {"op": value, …}` with v1's operators `lt`, `lte`, `gt`, `gte` (JavaScript's relational
///   comparison: numbers as numbers, text by UTF-16 code units, a number against numeric text as numbers),
///   `eq`, `ne` (strict equality: `1` is not `"1"`, text by code units), `in` (a list of values, strict
///   equality), `contains`, `startsWith`, `endsWith` (text only, both lowercased as JavaScript's `toLowerCase`
///   does, then by code units); an item without the field fails.
/// - `"field": {"sub": {…}}` (no operator): the conditions on the field's own members, when it is an object
///   (an item whose field is not an object passes, as in v1).
/// - `"or": [{…}, …]`: any of them (an empty list matches nothing); `"and": [{…}, …]`: all of them;
///   `"not": {…}`: not that.
/// - `"field": value` (a plain value): strict equality (v1 matches nothing there).
///
/// ```swift
/// let condition = try DocumentWhere(parsing: #"{"or":[{"views":{"gt":100}},{"author":{"name":{"lt":"m"}}}]}"#)
/// condition.matches(item)
/// ```
package indirect enum DocumentWhere: Sendable {
    /// Every member's condition.
    case all([DocumentWhere])
    /// Any of them.
    case any([DocumentWhere])
    /// Not this one.
    case not(DocumentWhere)
    /// The operators on the value of `field`.
    case field(String, [(String, JSONValue)])
    /// The conditions on the members of the object at `field`.
    case nested(String, DocumentWhere)

    /// v1's operators.
    package static let operators = ["lt", "lte", "gt", "gte", "eq", "ne", "in", "contains", "startsWith", "endsWith"]
    /// The most operators one `_where` holds (as `ListQuery.maxFilters` bounds the plain filters).
    static let maxConditions = ListQuery.maxFilters
    /// The deepest nesting of `and`, `or`, `not` and fields.
    static let maxDepth = 8

    /// Parses the `_where` text; a 400 says what is wrong with it.
    package init(parsing text: String) throws(HTTPError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Array(text.utf8), maxDepth: Self.maxDepth + 2)
        } catch {
            throw ListQuery.invalid("'_where' is not a JSON object: \(HTTPError(parsing: error).message)")
        }
        guard case .object(let object) = value else {
            throw ListQuery.invalid("'_where' must be a JSON object, not \(value.kindDescription)")
        }
        var count = 0
        self = try Self.parse(object, depth: 0, count: &count)
    }

    private static func parse(_ object: JSONObject, depth: Int, count: inout Int) throws(HTTPError) -> DocumentWhere {
        guard depth < maxDepth else { throw ListQuery.tooExpensive("'_where' nests at most \(maxDepth) levels") }
        var parts: [DocumentWhere] = []
        for (key, value) in object.members {
            switch (key, value) {
            case ("or", .array(let elements)), ("and", .array(let elements)):
                var alternatives: [DocumentWhere] = []
                for element in elements {
                    guard case .object(let inner) = element else {
                        throw ListQuery.invalid("'_where': each element of '\(key)' must be an object")
                    }
                    alternatives.append(try parse(inner, depth: depth + 1, count: &count))
                }
                parts.append(key == "or" ? .any(alternatives) : .all(alternatives))
            case ("not", .object(let inner)):
                parts.append(.not(try parse(inner, depth: depth + 1, count: &count)))
            case ("or", _), ("and", _):
                throw ListQuery.invalid("'_where': '\(key)' takes a list of objects")
            case ("not", _):
                throw ListQuery.invalid("'_where': 'not' takes an object")
            case (_, .object(let inner)):
                let known = inner.members.filter { operators.contains($0.key) }
                if known.isEmpty {
                    parts.append(.nested(key, try parse(inner, depth: depth + 1, count: &count)))
                } else {
                    count += known.count
                    parts.append(.field(key, known.map { ($0.key, $0.value) }))
                }
            default:
                count += 1
                parts.append(.field(key, [("eq", value)]))
            }
            if count > maxConditions {
                throw ListQuery.tooExpensive("'_where' holds at most \(maxConditions) conditions")
            }
        }
        return .all(parts)
    }

    /// Whether `object` (an item, or a member object) passes.
    package func matches(_ object: JSONObject) -> Bool {
        switch self {
        case .all(let parts): return parts.allSatisfy { $0.matches(object) }
        case .any(let parts): return parts.contains { $0.matches(object) }
        case .not(let inner): return !inner.matches(object)
        case .nested(let key, let inner):
            guard case .object(let member)? = object[key] else { return true }
            return inner.matches(member)
        case .field(let key, let operators):
            guard let value = object[key] else { return false }
            return operators.allSatisfy { Self.passes(value, $0.0, $0.1) }
        }
    }

    static func passes(_ value: JSONValue, _ name: String, _ operand: JSONValue) -> Bool {
        switch name {
        case "lt": return relation(value, operand).map { $0 < 0 } ?? false
        case "lte": return relation(value, operand).map { $0 <= 0 } ?? false
        case "gt": return relation(value, operand).map { $0 > 0 } ?? false
        case "gte": return relation(value, operand).map { $0 >= 0 } ?? false
        case "eq": return strictlyEqual(value, operand)
        case "ne": return !strictlyEqual(value, operand)
        case "in":
            if case .array(let candidates) = operand { return candidates.contains { strictlyEqual(value, $0) } }
            return strictlyEqual(value, operand)
        default:
            // NB: lowercased as JavaScript lowercases, then compared by code units, as v1's do.
            guard case .string(let text) = value else { return false }
            let test: ByteText.ValueTest =
                name == "contains" ? .contains : name == "startsWith" ? .startsWith : .endsWith
            return JavaScriptCase.passes(text, test, operand.javaScriptString)
        }
    }

    /// JavaScript's `===` on JSON values: the same number, text or boolean, or both null (an array or an
    /// object is never `===` a value parsed apart from it).
    private static func strictlyEqual(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a.hasCodeUnits(of: b)
        default:
            guard let a = number(lhs), let b = number(rhs) else { return false }
            return a == b
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let number): Double(number)
        case .real(let number): number
        default: nil
        }
    }

    /// How `lhs` orders against `rhs` under JavaScript's `<`: two strings by UTF-16 code units, otherwise
    /// both as numbers (`null` is 0, a boolean 0 or 1, text its number); nil when that is NaN or a value is
    /// an array or an object.
    private static func relation(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        if case .string(let a) = lhs, case .string(let b) = rhs {
            return ByteText.order(a, b)
        }
        guard let a = javaScriptNumber(lhs), let b = javaScriptNumber(rhs) else { return nil }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    static func javaScriptNumber(_ value: JSONValue) -> Double? {
        switch value {
        case .null: return 0
        case .bool(let flag): return flag ? 1 : 0
        case .integer, .real: return number(value)
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { return 0 }
            return Double(trimmed).flatMap { $0.isNaN ? nil : $0 }
        case .array, .object: return nil
        }
    }
}
