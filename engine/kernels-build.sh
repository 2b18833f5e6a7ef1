#!/bin/sh
# Rebuild the C kernels and embed each (base64) in its .ts file. Needs clang >= 14 with the wasm32 target and wasm-ld
# (Debian: apt-get install clang-14 lld-14). tests/align/kernels.test.ts checks the embedded bytes against a rebuild.
set -eu
cd "$(dirname "$0")"
CLANG=${CLANG:-$(command -v clang || command -v clang-14)}
# kernels.c file, the .ts file that embeds it
build() {
  out=$(mktemp)
  "$CLANG" --target=wasm32 -O3 -msimd128 -nostdlib -fno-builtin -Wl,--no-entry -Wl,--import-memory -o "$out" "$1"
  b64=$(base64 -w0 "$out")
  rm -f "$out"
  sed -i "s|^  '[A-Za-z0-9+/=]*';\$|  '$b64';|" "$2"
  echo "$2: $(printf %s "$b64" | wc -c) base64 characters"
}
build linalg/kernels.c linalg/kernels-wasm.ts
build models/heap-kernels.c models/heap-kernels-wasm.ts
