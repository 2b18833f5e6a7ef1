#!/bin/sh
# Rebuild kernels.c and embed it (base64) in kernels-wasm.ts. Needs clang >= 14 with the wasm32 target and wasm-ld
# (Debian: apt-get install clang-14 lld-14). tests/align/kernels.test.ts checks the embedded bytes against a rebuild.
set -eu
cd "$(dirname "$0")"
CLANG=${CLANG:-$(command -v clang || command -v clang-14)}
out=$(mktemp)
"$CLANG" --target=wasm32 -O3 -msimd128 -nostdlib -Wl,--no-entry -Wl,--import-memory -o "$out" kernels.c
b64=$(base64 -w0 "$out")
rm -f "$out"
sed -i "s|^  '[A-Za-z0-9+/=]*';\$|  '$b64';|" kernels-wasm.ts
echo "kernels-wasm.ts: $(printf %s "$b64" | wc -c) base64 characters"
