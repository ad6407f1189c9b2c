# Sourced by the benchmarks that compare two builds of LiveState in one run.
# Sets `binary` (build name -> path) and `builds` (the order each round runs them in):
#   LIVESTATE_BIN       the build measured (default: a release build of this checkout, built here)
#   LIVESTATE_OLD_BIN   an older build run before it in every round (A B A B), when set
if [ -z "${LIVESTATE_BIN:-}" ]; then
    swift build -c release --product livestate >&2
    LIVESTATE_BIN="$(swift build -c release --show-bin-path)/livestate"
fi
declare -A binary=([new]=$LIVESTATE_BIN)
builds=(new)
if [ -n "${LIVESTATE_OLD_BIN:-}" ]; then
    binary[old]=$LIVESTATE_OLD_BIN
    builds=(old new)
fi
