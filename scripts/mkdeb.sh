#!/bin/sh
# mkdeb.sh: builds gpuvet_<version>_<arch>.deb with dpkg-deb from an install tree made with
# PREFIX=/usr (`make deb` makes the tree with `make install DESTDIR=...` and calls this). The
# Depends line comes from the shared libraries the binary links (dpkg-shlibdeps when it is there,
# else each NEEDED library's package as dpkg -S names it); the NVIDIA libraries are loaded with
# dlopen and are no dependency: doctor explains their absence.
#
# usage: sh scripts/mkdeb.sh ROOT OUTDIR    prints the path of the .deb it wrote
set -eu
root=$1
outdir=$2
bin="$root/usr/bin/gpuvet"
[ -x "$bin" ] || { echo "mkdeb: no $bin: make the tree with 'make install PREFIX=/usr DESTDIR=$root'" >&2; exit 1; }
command -v dpkg-deb >/dev/null 2>&1 || { echo "mkdeb: dpkg-deb is missing (apt-get install dpkg)" >&2; exit 1; }
version=$("$bin" --version | awk '{ print $NF; exit }')
arch=$(dpkg --print-architecture)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Debian keeps man pages compressed and the licence as copyright
find "$root/usr/share/man" -name '*.1' -exec gzip -9nf {} +
cp "$root/usr/share/doc/gpuvet/LICENSE" "$root/usr/share/doc/gpuvet/copyright"

# Depends: dpkg-shlibdeps wants a debian/control to read; give it a minimal one
depends=
if command -v dpkg-shlibdeps >/dev/null 2>&1; then
	mkdir -p "$tmp/src/debian"
	printf 'Source: gpuvet\n\nPackage: gpuvet\nArchitecture: any\n' >"$tmp/src/debian/control"
	abs=$(cd "$root" && pwd)
	# gpuvet-serve (serve's HTTP server) links what gpuvet does not: gnutls, libcrypt
	depends=$(cd "$tmp/src" && dpkg-shlibdeps -O "$abs/usr/bin/gpuvet" \
		$(ls "$abs/usr/lib/gpuvet/gpuvet-serve" 2>/dev/null) 2>/dev/null |
		sed -n 's/^shlibs:Depends=//p') || depends=
fi
if [ -z "$depends" ]; then
	# each library the binary names, to the package that holds it
	depends=$(readelf -d "$bin" $(ls "$root/usr/lib/gpuvet/gpuvet-serve" 2>/dev/null) | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r lib; do
		path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
		[ -n "$path" ] && dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1
	done | sort -u | paste -sd, - | sed 's/,/, /g')
fi
[ -n "$depends" ] || { echo "mkdeb: cannot tell which packages the binary needs" >&2; exit 1; }

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: gpuvet
Version: $version
Architecture: $arch
Maintainer: gpuvet developers <gpuvet@localhost>
Installed-Size: $size
Depends: $depends
Section: utils
Priority: optional
Description: check and measure machines with NVIDIA GPUs
 gpuvet doctor checks the GPU stack bottom up (PCI, kernel module, device
 nodes, driver libraries, NVML, CUDA, GPU health, NVLink, toolkits, Python
 frameworks) and names the lowest broken layer with the fix; status, top,
 watch, topo and bench show and measure the GPUs. The NVIDIA libraries are
 loaded at run time, so the package installs without the driver.
EOF
deb="$outdir/gpuvet_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
