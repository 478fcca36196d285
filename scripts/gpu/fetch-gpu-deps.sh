#!/usr/bin/env bash
# Fetches what a build against PyTorch's LibTorch needs beyond torch, CUDA and CMake, for a machine
# that has none of it (a lent GPU machine: no Debian -dev packages, no network). Run here, on Debian 12
# x86-64: downloads the packages' .deb files into .deps/debs/, unpacks the headers, libraries and
# CMake/pkg-config files into .deps/root/ (a prefix for scripts/gpu/build-pytorch.sh), and packs that into
# .deps/root.tar.xz, the one file a device run carries (scripts/gpu/gpu-check.sh unpacks it there).
# .deps/ is ignored by git. Usage: scripts/gpu/fetch-gpu-deps.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

# The -dev packages of scripts/install-deps.sh that the core, CLI, tests and benches use, and the
# runtime libraries they link (spdlog was built against fmt 9; Debian's libsentencepiece0 names
# protobuf-lite as a dependency, but its libraries carry their own and need no other).
packages=(nlohmann-json3-dev libspdlog-dev libspdlog1.10 libfmt-dev libfmt9 libpcre2-dev libpcre2-8-0
          libicu-dev libicu72 libsentencepiece-dev libsentencepiece0
          libgtest-dev libgmock-dev libbenchmark-dev libbenchmark1debian)

rm -rf .deps/debs .deps/root .deps/root.tar.xz
mkdir -p .deps/debs
(cd .deps/debs && { apt-get download "${packages[@]}" 2>/dev/null || { apt-get update -q && apt-get download "${packages[@]}"; }; })
for deb in .deps/debs/*.deb; do dpkg -x "$deb" .deps/root; done

# Keep only what building and running needs: the whole travelling tree must stay under 64 MiB.
root=.deps/root
lib=$root/usr/lib/x86_64-linux-gnu
rm -rf "$root"/usr/share/{doc,man,lintian,icu,pkgconfig} "$root"/usr/{bin,sbin,src} "$lib/icu"
rm -f "$lib"/libicu{i18n,io,tu,test}* "$lib"/libicu{uc,data}.a "$lib"/libicudata.so* \
      "$lib"/libpcre2-{16,32,posix}* "$lib"/libpcre2-8.a "$lib"/pkgconfig/{icu-i18n,icu-io,libpcre2-16,libpcre2-32,libpcre2-posix}.pc
# pkg-config files name prefix=/usr: make them point into .deps/root wherever it lies.
sed -i 's|^prefix=/usr$|prefix=${pcfiledir}/../../..|' "$lib"/pkgconfig/*.pc

# ICU's data library is 31 MB; our code uses only NFC/NFD normalisation, character properties and
# root-locale lower-casing, whose data libicuuc carries compiled in. So it gets ICU's own kind of stub
# (ICU's stubdata.cpp): an empty common-data table under the symbol libicuuc looks for.
icu_major=$(basename "$(ls "$lib"/libicuuc.so.[0-9]* | head -1)" | sed 's/libicuuc\.so\.\([0-9]*\).*/\1/')
cat >.deps/icudata-stub.c <<EOF
/* An empty ICU common-data package ("ToCP" table with no entries), as ICU's stubdata.cpp builds it. */
#include <stdint.h>
struct header {
  uint16_t header_size; uint8_t magic1, magic2;
  uint16_t info_size, info_reserved; uint8_t big_endian, charset_family, sizeof_uchar, info_reserved_byte;
  uint8_t data_format[4], format_version[4], data_version[4];
  char padding[8];
  uint32_t count, reserved;
  struct { const char* name; const void* data; } toc[1];
};
__attribute__((visibility("default"))) const struct header icudt${icu_major}_dat = {
  32, 0xda, 0x27, 20, 0, 0, 0, 2, 0, {0x54, 0x6f, 0x43, 0x50}, {1, 0, 0, 0}, {0, 0, 0, 0}, {0}, 0, 0, {{0, 0}}};
EOF
cc -shared -fPIC -O2 -Wl,-soname,libicudata.so.$icu_major -o "$lib/libicudata.so.$icu_major" .deps/icudata-stub.c
ln -sf "libicudata.so.$icu_major" "$lib/libicudata.so"

tar -C .deps -cJf .deps/root.tar.xz root
echo "fetch-gpu-deps: ${#packages[@]} packages; .deps/root $(du -sh "$root" | cut -f1), .deps/root.tar.xz $(du -h .deps/root.tar.xz | cut -f1)"
