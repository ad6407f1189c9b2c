import CEvent
import Glibc

/// The `Date` field of this loop's responses, formatted once per second instead of once per response.
///
/// evhttp adds a `Date` to every HTTP/1.1 response that has none (http.c, `evhttp_maybe_add_date_header`),
/// formatting it each time (`evutil_date_rfc1123`: `gmtime` and a `printf`, about 3,600 instructions, 7 % of
/// a `GET /todos`'s user-space work). Added here first, the field is only found and kept.
final class DateField {
    private var second: time_t = -1
    /// `Wed, 02 Dec 2026 01:42:00 GMT`, NUL-terminated (libevent's own format, so nothing changes on the wire).
    private var text = [CChar](repeating: 0, count: 64)

    /// Calls `body` with the field's value for the current second.
    func withValue<T>(_ body: (UnsafePointer<CChar>) -> T) -> T {
        let now = time(nil)
        if now != second {
            second = now
            var parts = tm()
            var clock = now
            gmtime_r(&clock, &parts)
            if evutil_date_rfc1123(&text, text.count, &parts) <= 0 { text[0] = 0 }
        }
        return text.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
