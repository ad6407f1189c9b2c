import HTTP
import Storage

extension Response {
    /// The answer to a seed input a route committed (`SeedInput.append`): `success` once it is applied here, or
    /// storage's refusal (503 while the database is unreachable).
    static func committed(
        _ result: Result<SeedInput.Appended, JournalError>, success: (SeedInput.Appended) throws -> Response
    ) -> Response {
        switch result {
        case .success(let appended): (try? success(appended)) ?? Response(error: .internalError)
        case .failure(let error): Response(error: error)
        }
    }
}
