#!/bin/bash
# Build the krsi guest kernel: Debian's linux-source-6.1 + kernel/patches + kernel/config.
#
# One git tree of the unpacked tarball lives in $KRSI_CACHE/kernel/src (tag "base" = the
# tarball as shipped); objects live in $KRSI_CACHE/kernel/build (O=), so a changed series
# rebuilds only what it touches. Results go to $KRSI_CACHE/kernel/out/<hash>, keyed by a
# hash of BASE, the patches, the config fragments and this script; an unchanged key is never
# rebuilt, and older results are removed so the cache holds one kernel.
#
# Usage: scripts/kernel-build.sh [--print-dir]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KRSI_CACHE:-$HOME/.cache/krsi}
kdir=$cache/kernel
src=$kdir/src
obj=$kdir/build
jobs=${KRSI_JOBS:-$(($(nproc) + 1))}

log() { printf 'kernel: %s\n' "$*" >&2; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

key=$(cd "$top" && cat kernel/BASE kernel/patches/series $(sed -e '/^#/d' -e '/^$/d' -e 's|^|kernel/patches/|' kernel/patches/series) kernel/config/*.config scripts/kernel-build.sh | sha256sum | cut -c1-16)
out=$kdir/out/$key

if [ "${1:-}" = --print-dir ]; then
	echo "$out"
	exit 0
fi

if [ -f "$out/bzImage" ] && [ -f "$out/vmlinux.btf" ]; then
	log "up to date ($out)"
	exit 0
fi

read -r pkg version < "$top/kernel/BASE"
have=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || true)
if [ -z "$have" ]; then
	log "installing $pkg"
	apt-get install -y -q --no-install-recommends "$pkg" >&2
	have=$(dpkg-query -W -f '${Version}' "$pkg")
fi
[ "$have" = "$version" ] || log "warning: kernel/BASE names $pkg $version, this machine has $have; applying the series anyway"

tarball=/usr/src/$pkg.tar.xz
[ -f "$tarball" ] || die "$tarball not found (is $pkg installed?)"

# The tree is tagged with the package version it was unpacked from.
if [ ! -d "$src/.git" ] || [ "$(git -C "$src" tag -l "base-$have")" != "base-$have" ]; then
	log "unpacking $tarball into $src (about 1 minute)"
	rm -rf "$src" "$obj" "$kdir/unpack" "$kdir/apply"
	mkdir -p "$kdir/unpack"
	tar -C "$kdir/unpack" -xf "$tarball"
	mv "$kdir/unpack/$pkg" "$src"
	rmdir "$kdir/unpack"
	git -C "$src" init -q
	git -C "$src" config user.name krsi-build
	git -C "$src" config user.email krsi-build@localhost
	git -C "$src" config gc.auto 0
	# Debian's .gitignore ignores every top-level entry: add with -f.
	git -C "$src" add -A -f .
	git -C "$src" commit -q -m "$pkg $have (Debian bookworm)"
	git -C "$src" tag base
	git -C "$src" tag "base-$have"
fi

patches=()
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	patches+=("$top/kernel/patches/$p")
done < "$top/kernel/patches/series"
# Re-applying an unchanged series would touch the patched files and rebuild them for nothing.
series_key=$(cat "$top/kernel/BASE" "${patches[@]}" /dev/null | sha256sum | cut -c1-16)
if [ "$(cat "$kdir/applied" 2>/dev/null)" = "$series_key" ] &&
	[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
	log "kernel/patches already applied to $src"
else
	# The series is applied in a scratch worktree, and $src then checks out the result: only
	# the files that differ from what $src has are written, so make rebuilds what the change
	# touches rather than everything that includes a header some patch touches.
	log "applying kernel/patches/series to $src"
	rm -f "$kdir/applied"
	apply=$kdir/apply
	if [ ! -e "$apply/.git" ]; then
		rm -rf "$apply"
		git -C "$src" worktree prune
		git -C "$src" worktree add -q --detach "$apply" base
	fi
	git -C "$apply" am --abort >/dev/null 2>&1 || true
	git -C "$apply" checkout -q -f --detach base
	if [ ${#patches[@]} -gt 0 ]; then
		git -C "$apply" am -q --keep-cr "${patches[@]}" || die "a patch of kernel/patches does not apply to $have (see git -C $apply am --show-current-patch)"
	fi
	git -C "$src" am --abort >/dev/null 2>&1 || true
	git -C "$src" checkout -q -f -B krsi "$(git -C "$apply" rev-parse HEAD)"
	echo "$series_key" > "$kdir/applied"
fi
log "$(git -C "$src" rev-list --count base..HEAD) patches applied"

mkdir -p "$obj"
log "configuring: x86_64 defconfig + kvm_guest.config + kernel/config/*.config"
make -s -C "$src" O="$obj" defconfig kvm_guest.config >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$top"/kernel/config/*.config >/dev/null
make -s -C "$src" O="$obj" olddefconfig >/dev/null

missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$obj/.config" || { log "config: $line did not survive olddefconfig (have: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo unset))"; missing=1; }
		;;
	'# CONFIG_'*' is not set')
		opt=${line#\# }; opt=${opt%% *}
		if grep -q "^$opt=" "$obj/.config"; then log "config: $opt should be unset but is $(grep "^$opt=" "$obj/.config")"; missing=1; fi
		;;
	esac
done < <(cat "$top"/kernel/config/*.config)
[ $missing = 0 ] || die "requested config options were dropped; fix kernel/config/*.config"

log "building bzImage with -j$jobs (about 20 minutes from scratch, minutes when only the series changed)"
blog=$kdir/build.log
start=$(date +%s)
# Print one progress line per 500 compiled objects rather than the whole log.
set +e
make -C "$src" O="$obj" -j"$jobs" bzImage 2>&1 | tee "$blog" | awk -v t0="$start" '
	/^  (CC|AS|LD|AR|BTF|GEN)/ { n++ }
	n && n % 500 == 0 && !seen[n]++ { printf "kernel:   %d objects, %d s\n", n, systime() - t0; fflush() }
	/error:|Error [0-9]/ { print; fflush() }'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || { tail -n 40 "$blog" >&2; die "build failed (full log: $blog)"; }

mkdir -p "$out.tmp"
cp "$obj/arch/x86/boot/bzImage" "$out.tmp/bzImage"
cp "$obj/.config" "$out.tmp/config"
# Raw BTF is all that vmlinux.h and the selftests need; vmlinux itself stays in $obj.
objcopy --dump-section .BTF="$out.tmp/vmlinux.btf" "$obj/vmlinux" "$out.tmp/discard.o"
rm -f "$out.tmp/discard.o"
git -C "$src" rev-parse HEAD > "$out.tmp/commit"
rm -rf "$out"
mv "$out.tmp" "$out"
for old in "$kdir"/out/*; do
	[ "$old" = "$out" ] || rm -rf "$old"
done
ln -sfn "$out" "$kdir/current"
log "built in $(($(date +%s) - start)) s: $out/bzImage"
