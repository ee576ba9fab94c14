#!/usr/bin/env bash
# Builds the arm64 sysroot used by cmake/aarch64-linux-gnu.cmake: Debian arm64 .debs are
# fetched with `apt-get download` and unpacked with `dpkg -x`. Nothing is installed: dpkg
# refuses e.g. libcpuinfo-dev for amd64 and arm64 at once (same file, different contents).
#
# Usage: cmake/aarch64-sysroot.sh [SYSROOT]
#   SYSROOT   default: $QWINO_AARCH64_SYSROOT, else <repo>/build/aarch64-sysroot
#   env QWINO_AARCH64_DEB_CACHE      where the .debs are kept (default: SYSROOT.debs)
#   env QWINO_AARCH64_FAKE_CPUINFO=1 add a fake Cortex-A72 /proc/cpuinfo (see below)
# Re-running is a no-op while the stamp file matches; needs root (or sudo) only if the arm64
# apt architecture still has to be added.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sysroot="${1:-${QWINO_AARCH64_SYSROOT:-$repo/build/aarch64-sysroot}}"
debs="${QWINO_AARCH64_DEB_CACHE:-$sysroot.debs}"
fake_cpuinfo="${QWINO_AARCH64_FAKE_CPUINFO:-0}"

# Everything the cross build links against or loads at run time under qemu. libc6 is here
# although the cross toolchain brings its own glibc: see "One glibc" in aarch64-linux-gnu.cmake.
# libxnnpack0/libxnnpack-dev: the XNNPACK peer of the bench (bench/CMakeLists.txt finds it in
# the sysroot, so peer-conv-run can run XNNPACK under qemu and the A72 ruler); its other
# dependencies (libc6, libgcc-s1, cpuinfo, pthreadpool) are here anyway.
# Left out on purpose: gcc-12-base (docs only), googletest (gtest sources; libgtest-dev has the
# prebuilt static libs), libc6-dev (the cross toolchain's own glibc is used for linking).
pkgs=(libc6 libgcc-s1 libstdc++6
      libcpuinfo0 libcpuinfo-dev libpthreadpool0 libpthreadpool-dev
      libgtest-dev libbenchmark1debian libbenchmark-dev
      libxnnpack0 libxnnpack-dev)

stamp="$sysroot/.qwino-aarch64-sysroot"
want="packages: ${pkgs[*]}
fake_cpuinfo: $fake_cpuinfo"
up_to_date() { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; }
up_to_date && exit 0
# Safety: only ever replace a sysroot this script made (it carries the stamp).
if [ -e "$sysroot" ] && [ ! -f "$stamp" ] && [ -n "$(ls -A "$sysroot" 2>/dev/null || echo x)" ]; then
  echo "aarch64-sysroot: $sysroot exists, is not empty and has no $stamp; refusing to touch it" >&2
  exit 1
fi
# Serialize concurrent runs (parallel CI jobs, two build dirs) on the .deb cache dir.
mkdir -p "$debs"
exec 9<"$debs"
flock 9
up_to_date && exit 0

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# `apt-get download pkg:arm64` only works once apt knows the arm64 architecture and has
# fetched its package lists (a fresh CI machine has neither).
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  as_root dpkg --add-architecture arm64
  as_root apt-get update
elif ! apt-cache show libc6:arm64 >/dev/null 2>&1; then
  as_root apt-get update
fi

missing=()
for p in "${pkgs[@]}"; do
  compgen -G "$debs/${p}_*_arm64.deb" >/dev/null || missing+=("$p:arm64")
done
if [ ${#missing[@]} -gt 0 ]; then
  # Downloading as root into a directory _apt cannot read only triggers a warning.
  (cd "$debs" && apt-get download "${missing[@]}")
fi

# Unpack into a fresh temporary directory next to the target, then swap it in: an
# interrupted run never leaves a half-built sysroot that carries a valid stamp.
tmp="$(mktemp -d "$sysroot.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
for p in "${pkgs[@]}"; do
  # newest cached version if the cache holds several
  deb="$(printf '%s\n' "$debs/${p}"_*_arm64.deb | sort -V | tail -n 1)"
  dpkg -x "$deb" "$tmp"
done

# qemu-aarch64 -L SYSROOT opens SYSROOT/<path> and silently falls back to the HOST's <path>
# when that is missing. The guest loader searches /lib/aarch64-linux-gnu before
# /usr/lib/aarch64-linux-gnu, and on a usr-merged host /lib/aarch64-linux-gnu is the host's
# multiarch arm64 dir: an arm64 lib installed there (another glibc build) would be picked up.
# Merging lib into usr/lib (lib -> usr/lib) makes every such lookup hit the sysroot.
if [ -d "$tmp/lib" ] && [ ! -L "$tmp/lib" ]; then
  mkdir -p "$tmp/usr/lib"
  cp -a "$tmp/lib/." "$tmp/usr/lib/"
  rm -rf "$tmp/lib"
fi
ln -s usr/lib "$tmp/lib"
# Same fallback for the loader's config: without these the guest would read the host's
# /etc/ld.so.cache (may list host arm64 libs) and /etc/ld.so.preload. Empty = not used.
mkdir -p "$tmp/etc"
: > "$tmp/etc/ld.so.cache"
: > "$tmp/etc/ld.so.preload"

# qemu-user 7.2 hands the guest the host's (x86) /proc/cpuinfo. cpuinfo still initializes on
# aarch64 (ISA features come from the HWCAPs in the auxv, which qemu sets), but it cannot name
# the core (uarch unknown). Opt-in: a fake 4 x Cortex-A72 description (the project's reference
# core); -L redirects /proc and /sys paths too. Features match qemu's -cpu cortex-a72 HWCAPs.
# The /sys CPU lists say 4 CPUs too, so cpuinfo and sysconf(_SC_NPROCESSORS_*) agree.
if [ "$fake_cpuinfo" = 1 ]; then
  mkdir -p "$tmp/proc" "$tmp/sys/devices/system/cpu"
  for cpu in 0 1 2 3; do
    cat <<EOF
processor	: $cpu
BogoMIPS	: 108.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x0
CPU part	: 0xd08
CPU revision	: 3

EOF
  done > "$tmp/proc/cpuinfo"
  for f in possible present online; do echo 0-3 > "$tmp/sys/devices/system/cpu/$f"; done
fi

echo "$want" > "$tmp/.qwino-aarch64-sysroot"
chmod 755 "$tmp"   # mktemp made it 0700
# $sysroot is absent, an empty dir, or one of ours (it has the stamp; checked above).
if [ -f "$stamp" ]; then rm -rf "$sysroot"; elif [ -d "$sysroot" ]; then rmdir "$sysroot"; fi
mv -T "$tmp" "$sysroot"
trap - EXIT
echo "aarch64 sysroot ready: $sysroot" >&2
