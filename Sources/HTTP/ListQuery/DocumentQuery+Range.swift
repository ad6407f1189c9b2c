package import StrictJSON

extension DocumentQuery {
    /// The first filter an order of the items by its field can answer (`_gte`, `_lte`, or v1's `:gt`, `:lt`,
    /// `:gte`, `:lte`, with one value): its place in `filters` and its field.
    package var rangeFilter: (index: Int, path: [String])? {
        let ordering: Set<Operator> = [.atLeast, .atMost, .lessThan, .greaterThan]
        guard let index = filters.firstIndex(where: { ordering.contains($0.operator) && $0.values.count == 1 }) else {
            return nil
        }
        return (index, filters[index].path)
    }

    /// The places in `sorted` of the items that pass `rangeFilter`, as runs: `sorted` holds the items in the
    /// order `_sort` gives by that field (numbers, then text, each ascending, then the rest), so the numbers
    /// that pass are one run and the texts another, found by binary search (`value` reads an item's value at
    /// the field a few dozen times, not once per item).
    package func rangePlaces<Item>(in sorted: [Item], value: (Item) -> JSONValue?) -> [Range<Int>] {
        guard let (index, _) = rangeFilter else { return [] }
        let filter = filters[index]
        let raw = filter.values[0]
        func rank(_ place: Int) -> Int { SortValue(value(sorted[place])).rank }
        func passes(_ place: Int) -> Bool {
            guard let order = value(sorted[place]).flatMap({ Self.compare($0, raw) }) else { return false }
            switch filter.operator {
            case .atLeast: return order >= 0
            case .greaterThan: return order > 0
            case .atMost: return order <= 0
            default: return order < 0
            }
        }
        /// The first place in `range` where `predicate` (false, then true) holds, or its end.
        func first(in range: Range<Int>, where predicate: (Int) -> Bool) -> Int {
            var (low, high) = (range.lowerBound, range.upperBound)
            while low < high {
                let middle = (low + high) / 2
                if predicate(middle) { high = middle } else { low = middle + 1 }
            }
            return low
        }
        let textStart = first(in: sorted.indices) { rank($0) >= 1 }
        let textEnd = first(in: textStart..<sorted.count) { rank($0) >= 2 }
        let rising = filter.operator == .atLeast || filter.operator == .greaterThan
        return [0..<textStart, textStart..<textEnd].map { run in
            rising
                ? first(in: run, where: passes)..<run.upperBound : run.lowerBound..<first(in: run) { !passes($0) }
        }
    }

    /// The query without its filter at `index` (one an index has answered).
    package func without(filterAt index: Int) -> DocumentQuery {
        var rest = self
        rest.filters.remove(at: index)
        return rest
    }

    /// A query that only sorts by `path`, ascending: the order a range filter on that field is answered from.
    package init(ordering path: [String]) {
        sortKeys = [(path, false)]
    }
}
