extension DocumentQuery {
    /// Leaves out the plain `field=value` filters whose field no item of the collection has, as json-server
    /// 0.17 does before it filters (so a cache buster such as `?t=1733460000000`, or the stray half of a
    /// search whose `&` was not encoded, never empties a list), and answers their names. `someItemHas(path)`
    /// tells whether some item has a value, `null` included, at `path` (lodash's `_.has`).
    ///
    /// NB: only the plain form: json-server keeps `_ne`, `_gte`, `_lte` and `_like` whatever the items hold,
    /// and v1's `field:op` names an operator, not a field.
    package mutating func ignoreAbsentFields(_ someItemHas: ([String]) -> Bool) -> [String] {
        var ignored: [String] = []
        filters.removeAll { filter in
            guard Self.isIgnorable(filter), !someItemHas(filter.path) else { return false }
            ignored.append(filter.name)
            return true
        }
        return ignored
    }

    /// The paths of the filters `ignoreAbsentFields` leaves out when no item has them.
    package var ignorableFields: [[String]] { filters.filter(Self.isIgnorable).map(\.path) }

    private static func isIgnorable(_ filter: Filter) -> Bool {
        filter.operator == .equal && !filter.name.contains(":")
    }
}
