import CEvent
import Glibc
import Synchronization

/// Watches one folder with inotify on an `EventLoop` and reports, on the loop, the names of the entries
/// that changed in it, and once, that the folder itself went away.
///
/// The folder is watched rather than a file in it because editors and `git checkout` save by rename (a
/// temporary file renamed over the old one): a watch on the file would follow the old inode away, while the
/// folder's watch sees `IN_MOVED_TO` of the name. A write in place is reported when the writer closes the
/// file (`IN_CLOSE_WRITE`), not at each `write`, so a reader is not sent to a file still being written.
///
/// The names of one wake-up are reported together (a rename over a file is one call with its two names),
/// and a name is reported whatever happened to it (written, created, renamed to or from, deleted,
/// attributes changed, replaced by a folder): the caller looks at the entry itself. When the kernel's
/// queue overflowed and events were lost, every name the folder holds is reported.
///
/// The watch runs from `init` until `cancel()` or until the folder is deleted, renamed or unmounted (then
/// `onFolderGone` runs once and nothing is reported again). While it runs, the loop keeps it alive.
///
/// ```swift
/// let watch = try FolderWatch(loop: loop, folder: "/srv/data") { names in
///     if names.contains("db.json") { reload() }
/// } onFolderGone: {
///     log("the folder of db.json went away")
/// }
/// watch.cancel()
/// ```
package final class FolderWatch: @unchecked Sendable {
    // NB: @unchecked because `event` and `descriptor` are touched only on the loop's thread (arming,
    // reading and stopping happen there); `stopped` is atomic.

    /// The loop the callbacks run on.
    package let loop: EventLoop
    /// The folder watched, as given.
    package let folder: String
    private let onChange: @Sendable (_ names: Set<String>) -> Void
    private let onFolderGone: @Sendable () -> Void
    private var descriptor: Int32
    private var event: OpaquePointer?
    private let stopped = Atomic<Bool>(false)

    /// What is watched: completed writes, entries created, renamed in or out and deleted, attribute
    /// changes (`touch`, `chmod`), and the folder's own deletion or rename.
    ///
    /// NB: `IN_MODIFY` is left out on purpose (one event per `write`, a half-written file);
    /// `IN_EXCL_UNLINK` keeps quiet about files already unlinked but still open; `IN_ONLYDIR` refuses a
    /// path that is not a folder.
    private static let mask: UInt32 =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE)
        | UInt32(IN_DELETE) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)
        | UInt32(IN_ONLYDIR) | UInt32(IN_EXCL_UNLINK)

    /// Starts watching `folder`; throws when it cannot be watched (missing, not a folder, no inotify
    /// instance left: the error names the call and the reason).
    package init(
        loop: EventLoop, folder: String,
        onChange: @escaping @Sendable (_ names: Set<String>) -> Void,
        onFolderGone: @escaping @Sendable () -> Void = {}
    ) throws(LibEventError) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw LibEventError("inotify_init1: \(Self.errorText(errno))") }
        guard inotify_add_watch(descriptor, folder, Self.mask) >= 0 else {
            let error = errno
            close(descriptor)
            throw LibEventError("inotify_add_watch \(folder): \(Self.errorText(error))")
        }
        self.loop = loop
        self.folder = folder
        self.onChange = onChange
        self.onFolderGone = onFolderGone
        self.descriptor = descriptor
        // The watch is already in place, so changes made right after `init` returns are queued in the
        // kernel and reported once the event is armed on the loop.
        loop.executeNowOrLater { [self] in arm() }
    }

    deinit {
        // Reached only once the event is gone (a pending event holds a retain), or if it was never armed.
        if let event { event_free(event) }
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether the watch has stopped (`cancel()`, or the folder went away).
    package var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Stops the watch from any thread; once this ran on the loop, no callback runs again.
    package func cancel() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loop.executeNowOrLater { [self] in tearDown() }
    }

    private func arm() {
        guard !isStopped else {
            tearDown()
            return
        }
        // NB: a pending event keeps the watch alive (the loop owns it while it runs); `tearDown` drops
        // that retain.
        let event = event_new(
            loop.base, descriptor, Int16(EV_READ | EV_PERSIST),
            { _, _, context in
                Unmanaged<FolderWatch>.fromOpaque(context!).takeUnretainedValue().readEvents()
            }, Unmanaged.passRetained(self).toOpaque())
        guard let event else {
            Unmanaged.passUnretained(self).release()
            stop(thenReportGone: true)
            return
        }
        self.event = event
        event_add(event, nil)
    }

    /// Removes the event, closes the descriptor and drops the loop's retain; on the loop.
    private func tearDown() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        guard let event else { return }
        event_del(event)
        event_free(event)
        self.event = nil
        Unmanaged.passUnretained(self).release()
    }

    private func stop(thenReportGone reportGone: Bool) {
        let wasStopped = stopped.exchange(true, ordering: .acquiringAndReleasing)
        if reportGone && !wasStopped { onFolderGone() }
        // Last: the release may free `self`.
        tearDown()
    }

    /// Reads everything the kernel queued, then reports the names at once; on the loop.
    private func readEvents() {
        guard !isStopped else { return }
        var names = Set<String>()
        var gone = false
        var overflowed = false
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while descriptor >= 0 {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            Self.parse(buffer[..<count]) { mask, name in
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { overflowed = true }
                if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_IGNORED)) != 0 { gone = true }
                if let name { names.insert(name) }
            }
        }
        if overflowed { names.formUnion(Self.entries(of: folder)) }
        if !names.isEmpty { onChange(names) }
        if gone { stop(thenReportGone: true) }
    }

    /// Calls `body` with each `struct inotify_event` in `bytes`: its mask and its entry's name (nil for
    /// an event on the folder itself).
    private static func parse(_ bytes: ArraySlice<UInt8>, _ body: (UInt32, String?) -> Void) {
        let header = MemoryLayout<inotify_event>.size
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + header <= raw.count {
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = raw[(offset + header)..<min(raw.count, offset + header + length)]
                // The name is padded with NULs to an alignment boundary.
                let name = nameBytes.prefix { $0 != 0 }
                body(mask, name.isEmpty ? nil : String(decoding: name, as: UTF8.self))
                offset += header + length
            }
        }
    }

    /// The names in `folder` (without `.` and `..`); empty when it cannot be read.
    private static func entries(of folder: String) -> Set<String> {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names = Set<String>()
        while let entry = readdir(directory) {
            // NB: the name is read in place, up to its NUL: a copy of `pointee` (or of `d_name`, 256 bytes) reads
            // past the end of a short entry, which readdir's buffer does not hold (AddressSanitizer's
            // heap-buffer-overflow).
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.insert(name) }
        }
        return names
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
