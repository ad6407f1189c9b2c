/// Substring search over bytes (an item's JSON), without decoding them.
package enum ByteSearch {
    /// Whether `needle` occurs in `haystack`.
    package static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        firstIndex(of: needle, in: haystack, from: 0) != nil
    }

    /// Where `needle` first occurs in `haystack` at or after `start`, or nil.
    package static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let head = needle.first else { return start }
        let last = haystack.count - needle.count
        guard start <= last else { return nil }
        var position = start
        while position <= last {
            if haystack[position] == head {
                var matched = 1
                while matched < needle.count && haystack[position + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return position }
            }
            position += 1
        }
        return nil
    }
}
