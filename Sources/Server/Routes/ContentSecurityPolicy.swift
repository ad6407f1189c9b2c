/// The `Content-Security-Policy` values LiveState sends, so that nothing it serves runs script it did not ship.
enum ContentSecurityPolicy {
    /// The page in `--public`: its own scripts, styles, API calls and event stream only, no inline script or
    /// style, no plugins, no framing. Images may also come from other hosts: with `--upstream` the photos'
    /// thumbnails are there, and an image cannot run script.
    static let page =
        "default-src 'self'; img-src 'self' http: https:; object-src 'none'; base-uri 'none'; "
        + "form-action 'self'; frame-ancestors 'none'"

    /// A downloaded album image: served from our origin, so it must not run anything even if a browser were
    /// led to render it as a document.
    static let image = "default-src 'none'; sandbox"
}
