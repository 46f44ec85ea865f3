#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 30's races, and proof that their tests can fail: the observe
# kselftests race_minting and race_revoke (selftests/uidgen_observe_test.c)
# and libuidgen's test_observe_race_cache (userlib/tests/unit.c, through the
# per-thread cache on every CPU), run in one VM boot against this tree's
# module and library, then against mutants, each with one part of observe
# taken out:
#   nocut       libuidgen's cache does not compare the page's observed ID
#   nomove      the kernel moves neither clock nor slots (the page's
#               observed ID is raised as before)
#   noslots     the kernel moves the clock, not the slots
#   noclock     the kernel moves the slots, not the clock
#   unassigned  an observe while no node ID is in force moves nothing (as
#               if there were nothing to order while nothing is issued)
# The mutants are built in build/observe-races/ from copies of module/ and
# userlib/; the tree is not touched.
#   tests/observe/races.sh [-k KVER]
# Prints each run's TAP lines and a table: variant, test, pass or fail.
# Exit 1 if this tree fails any race test (a mutant that fails is the
# point, one that passes is said).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
kver=
while getopts "k:" opt; do
	case $opt in
	k) kver=$OPTARG ;;
	*) echo "usage: $0 [-k KVER]" >&2; exit 2 ;;
	esac
done
[ -n "$kver" ] || kver=$(tests/qemu/kver.sh 6.1)
kdir=/usr/src/linux-headers-$kver
out=$repo/build/observe-races
rm -rf "$out"
mkdir -p "$out"

make -s module KDIR="$kdir" > "$out/build.log" 2>&1
make -s -C userlib libuidgen.a libuidgen.so tests/unit tests/unit-tsan >> "$out/build.log" 2>&1
make -s -C selftests uidgen_observe_test >> "$out/build.log" 2>&1

# mutant NAME FILE PYTHON-REPLACEMENT-OLD PYTHON-REPLACEMENT-NEW
mutate() {
	python3 - "$1" "$2" "$3" <<'EOF'
import sys
path, old, new = sys.argv[1:]
s = open(path).read()
if s.count(old) != 1:
	sys.exit(f"{path}: the text to mutate is not there once")
open(path, "w").write(s.replace(old, new))
EOF
}

kmutant() {
	local name=$1 file=$2 old=$3 new=$4
	mkdir -p "$out/$name"
	cp -a module "$out/$name/module"
	cp -a uapi "$out/$name/uapi"
	rm -f "$out/$name"/module/*.o "$out/$name"/module/*.ko "$out/$name"/module/.*.cmd
	mutate "$out/$name/module/$file" "$old" "$new"
	make -s -C "$kdir" M="$out/$name/module" modules >> "$out/build.log" 2>&1 ||
		{ tail -n 20 "$out/build.log"; exit 1; }
}

# The kernel's mutants.
kmutant nomove gen.c \
	'	ret = uidgen_set_floor(g, id >> shift, boot_ns);
	return ret ? ret : 1;' \
	'	(void)shift;
	return 1;'
kmutant noslots gen.c \
	'int uidgen_set_floor(struct uidgen_gen *g, u64 floor_tick, u64 boot_ns)
{' \
	'static int uidgen_set_floor_slots(struct uidgen_gen *g, u64 floor_tick,
				   u64 boot_ns, bool slots);

int uidgen_set_floor(struct uidgen_gen *g, u64 floor_tick, u64 boot_ns)
{
	return uidgen_set_floor_slots(g, floor_tick, boot_ns, true);
}

static int uidgen_set_floor_slots(struct uidgen_gen *g, u64 floor_tick,
				   u64 boot_ns, bool slots)
{'
mutate "$out/noslots/module/gen.c" \
	'	for (i = 0; i < g->nr_slots; i++)
		uidgen_atomic_max(&g->slots[i].last,
				  ((floor_tick + 1) << seq_bits) - 1);
	return 0;' \
	'	for (i = 0; slots && i < g->nr_slots; i++)
		uidgen_atomic_max(&g->slots[i].last,
				  ((floor_tick + 1) << seq_bits) - 1);
	return 0;'
mutate "$out/noslots/module/gen.c" \
	'	ret = uidgen_set_floor(g, id >> shift, boot_ns);
	return ret ? ret : 1;' \
	'	ret = uidgen_set_floor_slots(g, id >> shift, boot_ns, false);
	return ret ? ret : 1;'
make -s -C "$kdir" M="$out/noslots/module" modules >> "$out/build.log" 2>&1
kmutant noclock gen.c \
	'	ret = uidgen_set_floor(g, id >> shift, boot_ns);
	return ret ? ret : 1;' \
	'	{
		unsigned int i;

		for (i = 0; i < g->nr_slots; i++)
			uidgen_atomic_max(&g->slots[i].last,
					  (((id >> shift) + 1) << g->l.seq_bits) - 1);
	}
	return 1;'
kmutant unassigned node.c \
	'	if (ret > 0) {
		mutex_lock(&n->lock);' \
	'	if (ret > 0 && READ_ONCE(n->node) != UIDGEN_NODE_NONE) {
		mutex_lock(&n->lock);'

# libuidgen's mutant: the cache hands out its run whatever was observed.
mkdir -p "$out/nocut"
cp -a userlib "$out/nocut/userlib"
cp -a uapi version.mk "$out/nocut/"
mkdir -p "$out/nocut/module"
cp module/internal.h "$out/nocut/module/"
rm -f "$out/nocut/userlib"/*.o "$out/nocut/userlib"/*.a "$out/nocut/userlib"/libuidgen.so* \
	"$out/nocut/userlib/tests/unit" "$out/nocut/userlib/tests/unit-tsan"
mutate "$out/nocut/userlib/libuidgen.c" \
	'			     c->fence == uidgen_fence(pg) &&
			     next > uidgen_observed(pg), 1) &&' \
	'			     c->fence == uidgen_fence(pg), 1) &&'
sed -i 's/^static uint64_t uidgen_observed/static __attribute__((unused)) uint64_t uidgen_observed/' \
	"$out/nocut/userlib/libuidgen.c"
make -s -C "$out/nocut/userlib" libuidgen.a libuidgen.so tests/unit >> "$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log"; exit 1; }

# variant KO UNIT: one line each for the guest.
{
	echo "this module/uidgen.ko userlib/tests/unit"
	echo "nocut module/uidgen.ko $out/nocut/userlib/tests/unit"
	for m in nomove noslots noclock unassigned; do
		echo "$m $out/$m/module/uidgen.ko userlib/tests/unit"
	done
} > "$out/variants"

rc=0
VM_TIMEOUT=${VM_TIMEOUT:-1800} tests/qemu/vm.sh -k "$kver" -o "$out/vm" \
	tests/observe/races-guest.sh "$out/variants" > "$out/vm.log" 2>&1 || rc=$?
grep -h '^\(ok\|not ok\|#\)' "$out"/vm/*.tap 2>/dev/null | grep -v '^# *$' || true
echo "== vm.sh exit $rc"
[ -s "$out/vm/verdicts" ] || { tail -n 30 "$out/vm.log"; exit 1; }
printf '%-12s %-28s %s\n' variant test result
cat "$out/vm/verdicts"
# This tree must pass every one.
! grep -q '^this .* fail' "$out/vm/verdicts" && [ "$rc" -eq 0 ]
