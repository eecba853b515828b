#!/bin/sh
# install-deps.sh: installs what gpuvet's build and tests need, on Debian/Ubuntu (apt-get) or
# Fedora/RHEL (dnf). Run as root or with sudo available. `make deps` calls it.
#   build: a C compiler and make, jansson (JSON), ncurses (top)
#   tests: jq, tmux (drives top), clang (the sanitizer and clang builds), groff and man (the
#          man pages are checked with warnings on), slurm-wlm and munge (tests/cli/slurm_real.sh
#          starts a single-node Slurm when run as root)
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
		jq tmux ca-certificates groff-base man-db slurm-wlm munge >/dev/null
elif command -v dnf >/dev/null 2>&1; then
	$SUDO dnf install -y -q gcc make clang compiler-rt jansson-devel ncurses-devel jq tmux \
		groff-base man-db slurm slurm-slurmd slurm-slurmctld munge
else
	echo "install-deps: no apt-get or dnf; install by hand: a C11 compiler, make, jansson," \
	     "ncurses development files, jq and tmux" >&2
	exit 1
fi
echo "install-deps: done"
