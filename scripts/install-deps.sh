#!/bin/sh
# install-deps.sh: installs what gpuvet's build and tests need, on Debian/Ubuntu (apt-get) or
# Fedora/RHEL (dnf). Run as root or with sudo available. `make deps` calls it.
#   build: a C compiler and make, jansson (JSON), ncurses (top), SQLite (history), libmicrohttpd
#          (serve's HTTP, with gnutls for TLS), libyaml (serve's --web-config), libcrypt (bcrypt)
#   tests: jq, tmux (drives top), sqlite3 (history's rows), clang (the sanitizer and clang
#          builds), groff and man (the man pages are checked with warnings on); curl, openssl,
#          prometheus and promtool (a real Prometheus scrapes serve; contrib's rules),
#          systemd-analyze and kubernetes-validate (PyPI, in build/venv) for contrib/,
#          slurm-wlm and munge (tests/cli/slurm_real.sh starts a single-node Slurm as root)
# The CUDA toolkit is optional: with nvcc on PATH, `make` also builds gpuvet's own GPU kernels.
set -e
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
	SUDO=sudo
fi
if command -v apt-get >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends \
		build-essential clang libclang-rt-dev libjansson-dev libncurses-dev \
		libsqlite3-dev jq tmux ca-certificates groff-base man-db sqlite3 \
		libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev curl openssl slurm-wlm munge \
		pocl-opencl-icd ocl-icd-libopencl1 clinfo >/dev/null
	# contrib's checks (tests/cli/contrib.sh): promtool, systemd-analyze, a venv for
	# kubernetes-validate (below); serve's tests use prometheus too
	$SUDO apt-get install -y -qq --no-install-recommends prometheus python3-venv systemd >/dev/null
elif command -v dnf >/dev/null 2>&1; then
	$SUDO dnf install -y -q gcc make clang compiler-rt jansson-devel ncurses-devel \
		sqlite-devel sqlite jq tmux groff-base man-db \
		libmicrohttpd-devel gnutls-devel libyaml-devel libxcrypt-devel curl openssl \
		golang-github-prometheus slurm slurm-slurmd slurm-slurmctld munge \
		pocl ocl-icd clinfo
else
	echo "install-deps: no apt-get or dnf; install by hand: a C11 compiler, make, jansson," \
	     "ncurses, libmicrohttpd, libyaml and libcrypt development files, jq, tmux, curl, openssl and prometheus" >&2
	exit 1
fi
# PyPI's kubernetes-validate, which Debian does not package, in the venv the tests look in
if [ ! -x build/venv/bin/kubernetes-validate ]; then
	python3 -m venv build/venv && build/venv/bin/pip install -q kubernetes-validate
fi
echo "install-deps: done"
