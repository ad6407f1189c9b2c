/// The version `livestate --version` prints (`livestate 1.0.0`); the API it serves is the one in
/// docs/api.md and `/openapi.json`, whose `info.version` is the same number.
enum LiveStateVersion {
    /// The release, as `MAJOR.MINOR.PATCH`.
    static let current = "1.0.0"
}
