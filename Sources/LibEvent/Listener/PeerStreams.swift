package import HTTP
import Synchronization

/// The streams (`/events`, live queries) each peer address holds open, shared by every listener of a
/// server, with a cap per address: one client must not take every slot the server has for streams (its
/// descriptors, the live queries' bound), and so shut the others out.
///
/// The address is the connection's own (`evhttp_connection_get_peer`): behind a proxy, every client has
/// the proxy's, so a deployment behind one raises the cap or turns it off (0).
///
/// ```swift
/// let peers = PeerStreams(limit: 2)
/// peers.take("10.0.0.7")   // true
/// peers.take("10.0.0.7")   // true
/// peers.take("10.0.0.7")   // false: answered 429 too_many_streams
/// peers.give("10.0.0.7")   // a stream ended
/// ```
package final class PeerStreams: Sendable {
    /// The most streams one address may hold open; 0: no cap.
    package let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    package init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot for `peer`; false when it holds `limit` streams already.
    package func take(_ peer: String) -> Bool {
        counts.withLock { counts in
            let held = counts[peer, default: 0]
            guard limit == 0 || held < limit else { return false }
            counts[peer] = held + 1
            return true
        }
    }

    /// Gives back a slot of `peer` (its stream ended).
    package func give(_ peer: String) {
        counts.withLock { counts in
            let held = counts[peer, default: 0]
            // NB: the entry goes with the address's last stream, so the table holds only addresses with one.
            counts[peer] = held > 1 ? held - 1 : nil
        }
    }

    /// The streams `peer` holds open now.
    package func held(by peer: String) -> Int {
        counts.withLock { $0[peer, default: 0] }
    }

    /// The 429 for an address that holds `limit` streams, with the CORS fields of the stream it asked for
    /// (a page must be able to read why).
    package func refusal(corsOf headers: HTTPHeaders) -> Response {
        var response = Response(
            error: HTTPError(
                429, "too_many_streams",
                "this address holds the most open streams (/events and live queries) the server allows one client"
                    + " (\(limit)); close one, or try again later", headers: ["Retry-After": "5"]))
        for field in headers {
            let name = field.name.lowercased()
            if name.hasPrefix("access-control-") || name == "vary" { response.headers[field.name] = field.value }
        }
        return response
    }
}
