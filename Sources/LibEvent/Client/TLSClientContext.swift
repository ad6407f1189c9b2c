import CEvent
import CEventOpenSSL

/// The OpenSSL settings every `https` fetch of an `HTTPClient` shares: TLS 1.2 or later, the server's
/// certificate chain verified against `trust`, and the certificate's names checked against the URL's host.
///
/// Each connection gets its own `SSL` (with the host for SNI and the name check) inside a libevent OpenSSL
/// bufferevent, which `evhttp` then drives like a plain socket, so https has the same size cap, deadline and
/// cancel as http.
///
/// ```swift
/// let tls = try TLSClientContext(trust: .file("/etc/livestate/ca.pem"))
/// let client = HTTPClient(loop: loop, tls: tls)
/// ```
package final class TLSClientContext: @unchecked Sendable {
    // NB: @unchecked because the SSL_CTX is only changed in init; OpenSSL allows SSL_new on a context
    // from several threads once it is set up.

    /// Which certificate authorities a server's chain must lead to.
    package enum Trust: Sendable, Equatable {
        /// The system store (OpenSSL's default paths, `/etc/ssl/certs`; `SSL_CERT_FILE` and
        /// `SSL_CERT_DIR` override them).
        case system
        /// Only the authorities in this PEM file.
        case file(String)
    }

    /// A context that could not be made, in words for the one line a failed start prints.
    package struct SetupError: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// The system-store context, or nil when OpenSSL could not make one (then https fetches fail).
    package static let system: TLSClientContext? = try? TLSClientContext(trust: .system)

    private let context: OpaquePointer

    /// A client context that trusts `trust`; throws when the CA file cannot be read or holds no certificate.
    package init(trust: Trust = .system) throws(SetupError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw SetupError(description: "cannot set up TLS: \(Self.lastOpenSSLError() ?? "OpenSSL failed")")
        }
        // NB: from here on `self` owns the context, so deinit frees it whatever is thrown below.
        self.context = context
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        _ = livestate_ssl_ctx_set_min_version(context, TLS1_2_VERSION)
        switch trust {
        case .system:
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw SetupError(description: "cannot load the system's certificate authorities")
            }
        case .file(let path):
            ERR_clear_error()
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                let why = Self.lastOpenSSLError() ?? "no certificate in it"
                throw SetupError(description: "cannot load the certificate authorities of \(path): \(why)")
            }
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A client bufferevent on `base` that will handshake with `host` (a name or an IP literal without
    /// brackets) once evhttp connects it; the bufferevent owns its `SSL` and frees it, and closes the socket.
    func bufferevent(base: OpaquePointer, host: String) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        guard Self.expect(host, on: ssl) else {
            SSL_free(ssl)
            return nil
        }
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue)
        guard let bufferevent = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, options)
        else {
            SSL_free(ssl)
            return nil
        }
        // NB: many servers end a close-delimited body without TLS's close_notify; that is the body's end,
        // not an error (a truncated Content-Length or chunked body is still caught by evhttp).
        bufferevent_openssl_set_allow_dirty_shutdown(bufferevent, 1)
        return bufferevent
    }

    /// Makes `ssl` check the certificate against `host`: an IP literal must be in its IP addresses, a name
    /// in its DNS names (no partial wildcards) and is sent as SNI (RFC 6066 has no SNI for addresses).
    private static func expect(_ host: String, on ssl: OpaquePointer) -> Bool {
        let parameters = SSL_get0_param(ssl)
        if X509_VERIFY_PARAM_set1_ip_asc(parameters, host) == 1 { return true }
        X509_VERIFY_PARAM_set_hostflags(parameters, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        return X509_VERIFY_PARAM_set1_host(parameters, host, 0) == 1
            && livestate_ssl_set_server_name(ssl, host) == 1
    }

    /// Why the TLS connection of `bufferevent` (made by `bufferevent(base:host:)`) to `host` failed, or
    /// nil when TLS did not fail (the TCP connection or HTTP did).
    static func failure(of bufferevent: OpaquePointer, host: String) -> HTTPClient.Failure? {
        guard let ssl = bufferevent_openssl_get_ssl(bufferevent) else { return nil }
        let verification = Int32(SSL_get_verify_result(ssl))
        if verification != X509_V_OK {
            return .untrustedCertificate(host: host, detail: detail(ofVerification: verification))
        }
        let error = bufferevent_get_openssl_error(bufferevent)
        guard error != 0 else { return nil }
        return .secureConnectionFailed(host: host, detail: reason(of: error))
    }

    /// A certificate verification result in words ("it has expired").
    private static func detail(ofVerification code: Int32) -> String {
        switch code {
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            "it is for another host name"
        case X509_V_ERR_CERT_HAS_EXPIRED: "it has expired"
        case X509_V_ERR_CERT_NOT_YET_VALID: "it is not valid yet"
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
            "it is self-signed"
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            "no trusted authority issued it"
        default:
            X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "verification error \(code)"
        }
    }

    /// OpenSSL's reason for a packed error code ("wrong version number").
    private static func reason(of error: UInt) -> String {
        ERR_reason_error_string(error).map { String(cString: $0) } ?? "OpenSSL error \(error)"
    }

    /// The reason of the newest error on this thread's OpenSSL error queue (which is then cleared).
    private static func lastOpenSSLError() -> String? {
        let error = ERR_peek_last_error()
        ERR_clear_error()
        return error == 0 ? nil : reason(of: error)
    }
}
