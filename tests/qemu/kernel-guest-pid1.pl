#!/usr/bin/perl
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
# Usage (as PID 1 only): kernel-guest-pid1.pl SCRIPT [ARG]...
#
# PID 1 of the guest of tests/qemu/kernel-guest.sh, after the chroot into
# the host's root: it runs SCRIPT with /bin/sh, reaps every process that
# ends meanwhile, and powers the guest off once SCRIPT has ended.  Reaping
# is the reason for it: the daemons that OVS's tests start detach and are
# adopted by PID 1, and until PID 1 reaps one that exited, 'kill -0' still
# finds it, so the tests that wait for a daemon to stop would wait out
# their timeout.  A shell as PID 1 reaps only its own jobs.

use strict;
use warnings;
use POSIX ();

my $script = shift @ARGV or die "usage: kernel-guest-pid1.pl SCRIPT [ARG]...\n";
my $pid = fork();
if (defined $pid && $pid == 0) {
    { exec '/bin/sh', $script, @ARGV; }
    print STDERR "kernel-guest: pid1: cannot run $script: $!\n";
    POSIX::_exit(127);
}
if (defined $pid) {
    while (1) {
        my $done = waitpid(-1, 0);
        last if $done == $pid || $done == -1;
    }
} else {
    print STDERR "kernel-guest: pid1: fork: $!\n";
}

# Power off: reboot(2) with LINUX_REBOOT_CMD_POWER_OFF (x86-64 syscall 169;
# the guest is always x86-64), after sync(2) (162) for the 9p shares.  If
# that fails, the magic SysRq key does the same.
syscall(162);
syscall(169, 0xfee1dead, 672274793, 0x4321fedc, 0);
if (open(my $sysrq, '>', '/proc/sysrq-trigger')) {
    print $sysrq 'o';
    close($sysrq);
}
sleep 1 while 1;
