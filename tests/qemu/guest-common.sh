# Copyright (c) 2026 ovs-percpu authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#
# What the qemu guests of tests/qemu/ share, sourced (not run) by
# ipip-guest.sh and kernel-guest.sh: finding Debian's kernel and its
# modules, a static busybox, and packing an initramfs.  Every function that
# finds something missing prints why on stderr, prefixed by $guest_name,
# and exits 77 (autotest's "skipped").
#
# Set guest_name before sourcing.  After guest_find_kernel:
#   guest_kver     the kernel release, e.g. 6.1.0-57-amd64
#   guest_kernel   its bzImage, which qemu boots with -kernel

# Prints "$guest_name: $*" on stderr and exits 77.
guest_skip() {
    echo "${guest_name:-guest}: $*" >&2
    exit 77
}

# Finds the kernel to boot: utilities/guest-kernel.sh's, the newest Debian
# -amd64 kernel installed with its modules (by linux-image-amd64) and its
# headers, the one configure builds our module for (GUEST_KVER overrides
# both).  Its bzImage boots directly with -kernel (Linux boot protocol),
# no vmlinux needed.
guest_find_kernel() {
    guest_kver=$(sh "$(dirname "$0")/../../utilities/guest-kernel.sh")
    [ -n "$guest_kver" ] || guest_skip "no Debian -amd64 kernel in /lib/modules with its image in /boot"
    guest_kernel=/boot/vmlinuz-$guest_kver
    [ -r "$guest_kernel" ] || guest_skip "no kernel $guest_kernel"
    [ -f "/lib/modules/$guest_kver/modules.dep" ] \
        || guest_skip "no modules.dep for $guest_kver"
    command -v qemu-system-x86_64 >/dev/null 2>&1 \
        || guest_skip "no qemu-system-x86_64 (package qemu-system-x86)"
}

# Succeeds if $1 needs no shared libraries, as a binary in an initramfs
# without /lib must.
guest_file_is_static() {
    ! LC_ALL=C ldd "$1" >/dev/null 2>&1
}

# Starts an initramfs tree in directory $1 (emptied first) with
# busybox-static's binary as /bin/busybox and the usual mount points.
guest_initramfs_start() {
    guest_busybox=/bin/busybox
    [ -x "$guest_busybox" ] || guest_skip "no $guest_busybox (package busybox-static)"
    guest_file_is_static "$guest_busybox" \
        || guest_skip "$guest_busybox is not static (package busybox-static)"
    rm -rf "$1"
    mkdir -p "$1/bin" "$1/etc" "$1/lib/modules" "$1/proc" "$1/sys" "$1/dev"
    cp "$guest_busybox" "$1/bin/busybox"
}

# Copies the modules $2... of the guest kernel, and every module they
# depend on, into $1/lib/modules/, and appends their file names, in the
# order insmod must load them, to the variable guest_modules (without
# repeating one).  The order comes from the modules.dep of the kernel's own
# tree, as modprobe would use it.
guest_add_modules() {
    _gam_root=$1
    shift
    for _gam_m in "$@"; do
        _gam_deps=$(modprobe -S "$guest_kver" --show-depends "$_gam_m" \
                        2>/dev/null | sed -n 's/^insmod \([^ ]*\) *.*$/\1/p')
        [ -n "$_gam_deps" ] || guest_skip "module $_gam_m not found for $guest_kver"
        for _gam_ko in $_gam_deps; do
            _gam_base=$(basename "$_gam_ko")
            case " $guest_modules " in
                *" $_gam_base "*) continue ;;
            esac
            cp "$_gam_ko" "$_gam_root/lib/modules/$_gam_base"
            guest_modules="${guest_modules:+$guest_modules }$_gam_base"
        done
    done
}

# Packs the tree $1 into the gzipped newc cpio $2 that qemu's -initrd
# takes.
guest_initramfs_pack() {
    (cd "$1" && find . | cpio -o -H newc --quiet) | gzip -1 > "$2"
}

# Sets guest_boot_image to what qemu's -kernel should boot: the kernel
# uncompressed (vmlinux, booted through its PVH entry point), else the
# bzImage.  Under TCG the bzImage spends about 4 s in the firmware and in
# decompressing itself before Linux prints its first line; the vmlinux,
# extracted once (python3's lzma, about 2 s) into a cache in ${TMPDIR:-/tmp}
# keyed by the kernel release, skips both.
guest_find_boot_image() {
    guest_boot_image=$guest_kernel
    _gfb_cache=${TMPDIR:-/tmp}/ovs-percpu-vmlinux-$guest_kver
    if [ ! -s "$_gfb_cache" ] || [ "$guest_kernel" -nt "$_gfb_cache" ]; then
        python3 - "$guest_kernel" "$_gfb_cache.$$" <<'PYEOF' 2>/dev/null || return 0
import lzma, sys
data = open(sys.argv[1], 'rb').read()
start = data.find(b'\xfd7zXZ\x00')
if start < 0:
    sys.exit(1)
elf = lzma.LZMADecompressor().decompress(data[start:])
if elf[:4] != b'\x7fELF':
    sys.exit(1)
open(sys.argv[2], 'wb').write(elf)
PYEOF
        # Without the PVH entry note (Xen note type 18), qemu cannot boot it.
        if LC_ALL=C readelf -n "$_gfb_cache.$$" 2>/dev/null \
               | grep -q 'note type: (0x00000012)'; then
            mv "$_gfb_cache.$$" "$_gfb_cache"
        else
            rm -f "$_gfb_cache.$$"
            return 0
        fi
    fi
    guest_boot_image=$_gfb_cache
}

# Copies the dynamically linked host binary $2 into the initramfs tree $1
# as /usr/bin/$(basename $2), with every shared library 'ldd' lists for it
# (the dynamic loader included) at the same path under $1, so that the
# guest runs the host's own program where busybox's applet cannot do the
# job (busybox's 'ip' cannot create ip6tnl devices, nor add IPv6 addresses
# with 'nodad').  Skips (77) if $2 is missing or ldd cannot list it.
guest_add_binary() {
    _gab_root=$1
    _gab_bin=$2
    [ -x "$_gab_bin" ] || guest_skip "no $_gab_bin"
    _gab_libs=$(LC_ALL=C ldd "$_gab_bin" 2>/dev/null \
                    | sed -n 's/^.*=> \(\/[^ ]*\) (0x[0-9a-f]*)$/\1/p;
                              s/^[[:space:]]*\(\/[^ ]*\) (0x[0-9a-f]*)$/\1/p') \
        || guest_skip "ldd cannot list the libraries of $_gab_bin"
    [ -n "$_gab_libs" ] || guest_skip "ldd lists no libraries for $_gab_bin"
    mkdir -p "$_gab_root/usr/bin"
    cp -L "$_gab_bin" "$_gab_root/usr/bin/$(basename "$_gab_bin")"
    for _gab_lib in $_gab_libs; do
        mkdir -p "$_gab_root$(dirname "$_gab_lib")"
        cp -L "$_gab_lib" "$_gab_root$_gab_lib"
    done
}
