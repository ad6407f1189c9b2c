import CEvent

/// glibc malloc's own view of the heap, and the call that gives its free pages back to the kernel.
///
/// Memory freed by a connection that left stays in malloc's arenas (that is what RSS shows) until malloc
/// reuses it or is asked to return it: `trim()` returns it, and `statistics` tells freed-but-kept memory
/// (not a leak) from memory still allocated.
///
/// ```swift
/// let before = Allocator.statistics.inUse
/// Allocator.trim()
/// ```
package enum Allocator {
    /// What malloc holds, in bytes (`mallinfo2`).
    package struct Statistics: Sendable, Equatable {
        /// Bytes allocated and not freed (small blocks plus mmapped ones).
        package var inUse: Int
        /// Bytes freed but kept in the arenas.
        package var free: Int
    }

    /// Returns the free pages of every arena to the kernel (`malloc_trim(0)`); true if any were returned.
    @discardableResult
    package static func trim() -> Bool {
        malloc_trim(0) != 0
    }

    /// The current statistics of every arena.
    package static var statistics: Statistics {
        let info = mallinfo2()
        return Statistics(inUse: Int(info.uordblks + info.hblkhd), free: Int(info.fordblks))
    }
}
