import CEvent
import HTTP

/// A field of a head still in a connection's input buffer, read before evhttp parses it: the `Origin` of a
/// request the guard answers itself (a body over the limit), so that an allowed page can read the answer.
enum HeadField {
    /// The value of the first field `name` (ASCII, any case) in the `length` bytes of `buffer` from `offset`;
    /// nil when there is none or the bytes are gone.
    static func value(_ name: String, in buffer: OpaquePointer?, from offset: Int, length: Int) -> String? {
        guard let buffer, offset >= 0, length > 0, evbuffer_get_length(buffer) >= offset + length else {
            return nil
        }
        var head = [UInt8](repeating: 0, count: length)
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(buffer, &position, offset, EVBUFFER_PTR_SET) == 0,
            evbuffer_copyout_from(buffer, &position, &head, length) == length
        else { return nil }
        let wanted = Array(name.lowercased().utf8) + [UInt8(ascii: ":")]
        for line in head.split(separator: UInt8(ascii: "\n")).dropFirst() {
            guard line.count > wanted.count,
                zip(line, wanted).allSatisfy({ ($0 | (($0 >= 65 && $0 <= 90) ? 0x20 : 0)) == $1 })
            else { continue }
            let value = line.dropFirst(wanted.count).filter { $0 != UInt8(ascii: "\r") }
            return String(decoding: value, as: UTF8.self).trimmingCharacters(in: [" ", "\t"])
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop(while: { set.contains($0) }).reversed().drop(while: { set.contains($0) }).reversed())
    }
}
