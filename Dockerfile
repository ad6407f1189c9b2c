# LiveState container image: build with the Swift toolchain, run as a non-root user on a root file
# system of only the binary's Debian libraries (no shell, no package manager).
#   docker build -t livestate .
#   docker run --init -p 127.0.0.1:8080:8080 -v livestate-data:/data livestate
# The server listens on 0.0.0.0:8080 inside the container only (LIVESTATE_HOST below);
# todos live in the /data volume. scripts/container-test builds and runs this file with podman.

# ---- build: the official Swift 6 toolchain image on Debian bookworm --------------------------
FROM swift:6.3.1-bookworm AS build

# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libevent-dev libssl-dev libsqlite3-dev libpq-dev libpcre2-dev libjansson-dev libsimdjson-dev \
        libdeflate-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /build
# Manifest first, then the sources: SwiftPM needs every target's folder to load the package.
COPY Package.swift ./
COPY Sources ./Sources
COPY Benchmarks ./Benchmarks
COPY Tests ./Tests
COPY Fuzz/LiveStateFuzz ./Fuzz/LiveStateFuzz
# The .build cache survives source changes between builds (BuildKit and podman/buildah). The build id
# ties the binary to its debug file below.
RUN --mount=type=cache,target=/build/.build \
    swift build -c release --static-swift-stdlib --product livestate -Xlinker --build-id=sha1 \
    && install -D -m 0755 .build/release/livestate /staging/livestate
# Debug symbols split off, not dropped: the image gets the stripped binary, which names its debug file
# (.gnu_debuglink livestate.debug, same build id); the debug-symbols stage holds that file, so a core
# dump or a backtrace's addresses can be read with gdb or addr2line (docs/container.md).
RUN objcopy --only-keep-debug --compress-debug-sections=zlib /staging/livestate /staging/livestate.debug \
    && strip --strip-all /staging/livestate \
    && objcopy --add-gnu-debuglink=/staging/livestate.debug /staging/livestate

# ---- debug symbols of that binary, as a folder: --target debug-symbols --output type=local,dest=DIR -
FROM scratch AS debug-symbols
COPY --from=build /staging/livestate.debug /livestate.debug

# ---- runtime-files: the runtime's root file system, assembled from Debian bookworm packages ---------
FROM debian:bookworm-slim AS runtime-files

# The packages of the binary's shared libraries (scripts/test.d/85-dockerfile-check compares them with
# ldd): libevent, its OpenSSL bufferevents with libssl3 (https downloads), SQLite, libpq
# (--data postgres://), PCRE2 (`_like` patterns), jansson (request bodies), simdjson (a data file's
# items at start), libdeflate (gzip responses), and the system's certificate authorities for https. Only their files that the binary
# needs go into the image (below).
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libevent-2.1-7 libevent-pthreads-2.1-7 libevent-openssl-2.1-7 libssl3 libsqlite3-0 libpq5 libpcre2-8-0 \
        libjansson4 libsimdjson14 libdeflate0 ca-certificates \
    && rm -rf /var/lib/apt/lists/*

# /rootfs: the libraries `ldd` lists for the binary with the loader and their symlinks, the CA bundle,
# /etc/passwd and /etc/group for uid 10001, /data owned by it, /tmp, the packages' copyright files;
# the binary must start in it (the script says how each part is chosen).
COPY scripts/container/runtime-rootfs /usr/local/sbin/runtime-rootfs
COPY --from=build /staging/livestate /staging/livestate
RUN runtime-rootfs /staging/livestate /rootfs

# ---- run: only that file system, the binary and the page (no shell, no package manager) ------------
FROM scratch

COPY --from=runtime-files /rootfs /
COPY --from=build /staging/livestate /usr/local/bin/livestate
# The page: owned by root, so the server (not root) can only read it.
COPY public /usr/share/livestate/public

ENV PATH=/usr/local/bin \
    LIVESTATE_HOST=0.0.0.0 \
    LIVESTATE_PORT=8080 \
    LIVESTATE_DATA=/data/livestate.sqlite \
    LIVESTATE_PUBLIC=/usr/share/livestate/public

# The user of /etc/passwd above: a fixed uid, so a /data volume keeps its owner across image rebuilds.
VOLUME ["/data"]
EXPOSE 8080
USER 10001:10001
WORKDIR /data

HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["livestate", "healthcheck"]

# Exec form: livestate is the process that gets SIGTERM (run with --init for a reaping PID 1).
ENTRYPOINT ["livestate"]
CMD []
