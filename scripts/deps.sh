#!/bin/bash
# Install the Debian packages that building, testing and the demo need. Idempotent: prints
# what it installs, and nothing else when everything is present. `scripts/deps.sh bench` adds
# what only `make bench` needs (gnuplot for its plot).
set -euo pipefail

pkgs=(
	# kernel build
	linux-source-6.1 build-essential flex bison bc libelf-dev libssl-dev dwarves cpio kmod rsync zstd
	# BPF objects and the agent; the OCI hook is built with musl (oci-hooks/hook.mk)
	clang llvm lld libbpf-dev bpftool libjson-c-dev libyaml-dev libcgroup-dev pkg-config musl-tools
	# guest image and runner
	qemu-system-x86 qemu-utils debootstrap debian-archive-keyring e2fsprogs
	# tests and scripts
	jq python3 python3-ply python3-git
	# make check-man: rendering the man pages; make deb: building and checking the package
	man-db groff-base dpkg-dev lintian
	# make krsid-image: the shell of the agent image's entrypoint
	busybox-static
	# make fuzz, make unit-asan: clang's libFuzzer, ASan and UBSan runtimes
	libclang-rt-14-dev
)
[ "${1:-}" != bench ] || pkgs+=(gnuplot-nox)

missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
echo "deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: error: need root to apt-get install ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# apt-get update once per day at most: the lists are what makes package names resolvable.
stamp=/var/lib/apt/periodic/krsi-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
	apt-get update -q
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
apt-get install -y -q --no-install-recommends "${missing[@]}"
