/// What became of the latest selection while it is not the current image: `GET /albums/selection`'s
/// `pending` and `failed`.
///
/// The seed's pipeline emits an image or nothing (`compactMap`); a person looking at the page needs to
/// know which "nothing": still downloading, or never going to arrive, and why.
package enum AlbumSelectionStatus: Equatable, Sendable {
    /// The latest selection is the current image, or nothing was selected yet.
    case settled
    /// The latest selection is downloading.
    case pending(url: String)
    /// The latest selection could not be shown; the current image (if any) stays.
    case failed(url: String, reason: String)
}
