# SPDX-License-Identifier: GPL-2.0
# The machine every test VM with more than one CPU boots (tests/qemu/vm.sh,
# snapshot.sh, debug-vm.sh; bash, sourced): QEMU's TCG, and a CPU with
# RDRAND.
#
# RDRAND seeds the random pool at boot, before the second CPU starts:
# Debian's kernels trust it (6.1's RANDOM_TRUST_CPU=y; 6.12 trusts it by
# default), so random_init() flips the "pool ready" static key on the boot
# CPU alone. Flipped later, while another vCPU runs that code, TCG races
# the patching: an int3 oops in crng_make_state (6.12, with a virtio-rng
# seeding the pool during boot; from an interrupt it panics) or a spinning
# getrandom (6.1). Without RDRAND the pool was seeded by jitter at some
# moment of the job (306 s into one 6.12 guest); a 6.12 guest died
# mid-suite in CI.
tcg_args=(-accel tcg -cpu qemu64,+rdrand)
