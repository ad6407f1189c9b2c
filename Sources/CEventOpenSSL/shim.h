#ifndef LIVESTATE_CEVENTOPENSSL_SHIM_H
#define LIVESTATE_CEVENTOPENSSL_SHIM_H
// libevent's OpenSSL bufferevents (Debian's libevent-dev: libevent_openssl) and the OpenSSL 3 client API
// they drive (libssl-dev). As in CEvent's shim, <sys/select.h> comes first (libevent's _GNU_SOURCE).
#include <sys/select.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <event2/bufferevent_ssl.h>

// OpenSSL spells these as macros over SSL_ctrl / SSL_CTX_ctrl, which Swift does not import.

/// Sends `host` as the TLS server name (SNI), so a server with several names presents the right one.
static inline int livestate_ssl_set_server_name(SSL *ssl, const char *host) {
    return (int)SSL_set_tlsext_host_name(ssl, host);
}

/// Refuses protocol versions older than `version` (e.g. TLS1_2_VERSION).
static inline int livestate_ssl_ctx_set_min_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

#endif
