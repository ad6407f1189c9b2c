/// What `stat` says of a file, enough to tell that it changed since it was last read: a rename over it
/// gives another inode, a write in place another size or change time.
///
/// ```swift
/// if AtomicFile.identity(path) != lastLoaded { reload() }
/// ```
package struct FileIdentity: Equatable, Hashable, Sendable {
    /// The device that holds it (`st_dev`).
    package var device: UInt64
    /// Its inode on that device (`st_ino`).
    package var inode: UInt64
    /// Its size in bytes (`st_size`).
    package var size: Int64
    /// When its content was last modified, in nanoseconds since 1970 (`st_mtim`); tools may set it back.
    package var modified: Int64
    /// When its inode last changed (content, permissions, links), in nanoseconds since 1970 (`st_ctim`);
    /// no tool can set it, so it catches a write in place that kept size and modification time.
    package var changed: Int64
    /// Whether it is a regular file (not a folder, a device, a FIFO or a socket).
    package var isRegularFile: Bool

    /// An identity from its parts.
    package init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64, isRegularFile: Bool) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
        self.isRegularFile = isRegularFile
    }
}
