"""Test certificates for https upstreams, made with the openssl command line (nothing is checked in).

`make(folder, mode)` writes `folder/ca.pem` (a test authority, the file a client is told to trust)
and a server certificate and key for `mode`, and returns their paths:

  valid       localhost and 127.0.0.1, issued by the test authority, valid for 2 days from now
  wrongname   only elsewhere.test, issued by the test authority
  selfsigned  localhost and 127.0.0.1, signed by its own key (not by the authority)
  expired     localhost and 127.0.0.1, issued by the test authority, valid only in January 2020

The authority is made once per folder, so servers of several modes can share one ca.pem.
"""

import os
import subprocess
import sys

MODES = ("valid", "wrongname", "selfsigned", "expired")
LOCAL_NAMES = "DNS:localhost,IP:127.0.0.1"
KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


def openssl(*args, cwd):
    run = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed:\n{run.stderr}")


def authority(folder):
    """folder/ca.pem and ca.key, made if missing."""
    if not os.path.exists(os.path.join(folder, "ca.pem")):
        openssl("req", "-x509", *KEY, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=LiveState test authority",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=folder)
    return os.path.join(folder, "ca.pem")


def issue(folder, name, names, dates=None):
    """name.pem/name.key signed by the authority for `names`; `dates` (start, end) as YYYYMMDDHHMMSSZ."""
    authority(folder)
    openssl("req", *KEY, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", "/CN=LiveState test server",
            cwd=folder)
    extensions = os.path.join(folder, f"{name}.ext")
    with open(extensions, "w") as f:
        f.write(f"subjectAltName={names}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    if dates is None:
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.pem", "-days", "2", "-extfile", extensions, cwd=folder)
    else:
        # `openssl x509` (3.0) cannot backdate; `openssl ca` can, with a throwaway database.
        database = os.path.join(folder, f"{name}.db")
        open(database, "w").close()
        config = os.path.join(folder, f"{name}.cnf")
        with open(config, "w") as f:
            f.write(
                "[ca]\ndefault_ca = test\n[test]\n"
                f"database = {database}\nnew_certs_dir = {folder}\nserial = {folder}/{name}.serial\n"
                "default_md = sha256\npolicy = anything\nunique_subject = no\ncopy_extensions = none\n"
                "[anything]\ncommonName = supplied\n"
            )
        with open(os.path.join(folder, f"{name}.serial"), "w") as f:
            f.write("1000\n")
        openssl("ca", "-batch", "-notext", "-config", config, "-cert", "ca.pem", "-keyfile", "ca.key",
                "-startdate", dates[0], "-enddate", dates[1], "-extfile", extensions,
                "-in", f"{name}.csr", "-out", f"{name}.pem", cwd=folder)
    return os.path.join(folder, f"{name}.pem"), os.path.join(folder, f"{name}.key")


def make(folder, mode):
    """(certificate, key) of a server of `mode`; folder/ca.pem is the authority a client should trust."""
    os.makedirs(folder, exist_ok=True)
    authority(folder)
    if mode == "valid":
        return issue(folder, "valid", LOCAL_NAMES)
    if mode == "wrongname":
        return issue(folder, "wrongname", "DNS:elsewhere.test")
    if mode == "expired":
        return issue(folder, "expired", LOCAL_NAMES, ("20200101000000Z", "20200102000000Z"))
    if mode == "selfsigned":
        openssl("req", "-x509", *KEY, "-keyout", "selfsigned.key", "-out", "selfsigned.pem", "-days", "2",
                "-subj", "/CN=LiveState self-signed", "-addext", f"subjectAltName={LOCAL_NAMES}", cwd=folder)
        return os.path.join(folder, "selfsigned.pem"), os.path.join(folder, "selfsigned.key")
    raise ValueError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")


if __name__ == "__main__":
    print(make(sys.argv[1], sys.argv[2]))
