import Foundation
import Patterns

/// NB: the bounds on one list request. A list query runs on an event loop's thread over every item of a
/// list (5,000 albums), so its work is bounded before it starts and while it runs, and a query past a
/// bound is a 400 `query_too_expensive` rather than a loop held for seconds (docs/api.md, the list query language):
/// - at most `maxFilters` filter values (`field=`, `field_ne=`, `_gte`, `_lte`, `_like`, `q`) in one query;
/// - at most `maxSortKeys` `_sort` fields;
/// - each `_like` pattern is compiled by PCRE2 with `patternLimits`: at most 256 bytes, 32 KiB compiled,
///   20,000 backtracking steps per item (a pattern that needs more on any item is refused);
/// - filtering and sorting stop after `workBudget` of the loop thread's CPU time (`Meter`).
///   CPU time rather than wall time: the same query gets the same answer on a busy machine as on an idle
///   one, and it is the loop's own work that keeps other requests on it waiting.
/// docs/api.md names these bounds.
extension ListQuery {
    /// The most filter values one query may hold.
    package static let maxFilters = 20
    /// The most `_sort` fields one query may hold.
    package static let maxSortKeys = 8
    /// How much CPU time filtering and sorting one list may take before the query is refused.
    package static let workBudget = Duration.milliseconds(50)
    /// The limits of each `_like` pattern.
    static let patternLimits = PatternLimits()

    /// A 400 `query_too_expensive`.
    package static func tooExpensive(_ message: String) -> HTTPError {
        HTTPError.badRequest(message, code: "query_too_expensive")
    }

    /// `pattern` compiled for `name` (`title_like`), or the 400 saying why not.
    static func compile(_ pattern: String, for name: String) throws(HTTPError) -> Pattern {
        do {
            return try Pattern(pattern, limits: patternLimits)
        } catch {
            switch error {
            case .tooLong(let limit):
                throw tooExpensive("a '\(name)' pattern is at most \(limit) bytes long")
            case .tooComplex(let reason):
                throw tooExpensive("the '\(name)' pattern is too complex: \(reason)")
            case .invalid(let message, let offset):
                throw invalid("'\(name)' is not a valid regular expression: \(message) (at byte \(offset))")
            case .limitExceeded, .failed:
                throw tooExpensive("the '\(name)' pattern cannot be compiled")
            }
        }
    }

    /// Measures the calling thread's CPU time against `workBudget` (also the building of an answer whose size
    /// depends on the query: `_embed` and `_expand`).
    package struct Meter {
        private let start = Self.threadCPUTime()
        private var checks = 0
        /// What the 400 advises.
        private let advice: String
        /// False: never throws (work done off the loop, such as a sort index's build).
        private let bounded: Bool

        package init(advice: String = "use fewer or simpler filters or sort keys", bounded: Bool = true) {
            self.advice = advice
            self.bounded = bounded
        }

        /// Throws `query_too_expensive` once the budget is spent; reads the clock every 16th call.
        package mutating func check() throws(HTTPError) {
            checks &+= 1
            guard bounded, checks & 15 == 0 else { return }
            if Self.threadCPUTime() - start > ListQuery.workBudget {
                throw ListQuery.tooExpensive("the query needs more than \(ListQuery.workBudget) of work; \(advice)")
            }
        }

        private static func threadCPUTime() -> Duration {
            var now = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
            return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
        }
    }

    /// The 400 for a `_like` match that reached a PCRE2 limit.
    static func tooExpensive(matching condition: Condition, _ error: PatternError) -> HTTPError {
        let name = condition.field + condition.comparison.rawValue
        if case .limitExceeded(let limit) = error {
            return tooExpensive(
                "the '\(name)' pattern needs too much backtracking (its \(limit.rawValue) limit); simplify it")
        }
        return tooExpensive("the '\(name)' pattern could not be matched")
    }
}
