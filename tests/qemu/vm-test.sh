#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/qemu/vm.sh's second boot, against a fake QEMU (no VM): a guest
# whose kernel dies or hangs before the job is booted once more and says
# so; one that dies after the job started is not; two dead boots are exit
# 124, with the console's end on stderr; the record of a retry outlives a
# later boot of the same OUTDIR; nothing setuid, setgid or a device node
# that the guest left in OUTDIR outlives the run. Host only.   tests/qemu/vm-test.sh
. tests/shell/lib.sh
. tests/totals.sh
# Under build/ (made if need be), never elsewhere: with no directory the
# fake QEMU below would be written over the real one in /bin.
mkdir -p "$PWD/build"
tmp=$(mktemp -d "$PWD/build/vm-test.XXXXXX") && [ -d "$tmp" ] || {
	echo "vm-test.sh: cannot make a directory under $PWD/build" >&2
	exit 1
}
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
# The fake QEMU: boot number N (counted in $tmp/boots) does what
# $tmp/plan's line N says: "die" prints an oops and exits; "hang" never
# ends (until killed); "start-die"
# is a guest that started the job (OUTDIR/started) and then died; "ok"
# is a guest that ran the job: started, rc 0, an empty kernel log.
cat > "$tmp/bin/qemu-system-x86_64" <<FAKE
#!/bin/sh
n=\$((\$(cat "$tmp/boots" 2>/dev/null || echo 0) + 1))
echo \$n > "$tmp/boots"
dir=\$(printf '%s\n' "\$@" | sed -n 's/^local,path=\(.*\),mount_tag=out,.*/\1/p')
pidfile=\$(printf '%s\n' "\$@" | sed -n '/^-pidfile\$/{n;p}')
echo \$\$ > "\$pidfile"
printf '%s\n' "\$*" > "$tmp/args"
case \$(sed -n "\${n}p" "$tmp/plan") in
die) echo "[    1.000000] int3: 0000 [#1] PREEMPT SMP NOPTI" ;;
hang) echo "[    1.000000] hung"; exec sleep 120 ;;
start-die) echo "== uidgen-vm: guest up"; echo up > "\$dir/started" ;;
ok) echo "== uidgen-vm: guest up"; echo up > "\$dir/started"; echo 0 > "\$dir/rc"
	echo "[    0.000000] random: crng init done" > "\$dir/crng-at-boot"
	: > "\$dir/dmesg.txt" ;;
norng) echo "== uidgen-vm: guest up"; : > "\$dir/crng-at-boot"; echo up > "\$dir/started"
	echo 0 > "\$dir/rc"; : > "\$dir/dmesg.txt" ;;
setuid) echo "== uidgen-vm: guest up"; echo up > "\$dir/started"; echo 0 > "\$dir/rc"
	: > "\$dir/dmesg.txt"
	# What a job as root in the guest can leave in OUTDIR (9p,
	# security_model=none keeps the mode bits and makes device nodes).
	mkdir -p "\$dir/sub"; cp /bin/true "\$dir/sub/suid"; chmod 4755 "\$dir/sub/suid"
	cp /bin/true "\$dir/sgid"; chmod 2755 "\$dir/sgid"
	mknod "\$dir/disk" b 8 0; mknod "\$dir/sub/mem" c 1 1 ;;
esac
FAKE
chmod +x "$tmp/bin/qemu-system-x86_64"
echo 'echo job' > "$tmp/job.sh"

run() {	# run NAME PLAN...: vm.sh's exit status with that plan, into $tmp/NAME
	mkdir -p "$tmp/$name"
	printf '%s\n' "$@" > "$tmp/plan"
	rm -f "$tmp/boots"
	PATH="$tmp/bin:$PATH" VM_BOOT_TIMEOUT=3 tests/qemu/vm.sh -o "$tmp/$name" "$tmp/job.sh" \
		> "$tmp/$name.out" 2> "$tmp/$name.err"
	echo $?
}

name=first; is "the kernel dies before the job, then boots: exit 0" "$(run die ok)" 0
is "  two boots" "$(cat "$tmp/boots")" 2
ok "  boot-retried left" test -s "$tmp/first/boot-retried"
like "  it says so" "$(cat "$tmp/first.err")" 'did not reach the job .*booting it once more'
like "  with the oops" "$(cat "$tmp/first.err")" '^vm.sh: \| \[ *1\.0+\] int3'
ok "  the dead console kept" grep -q int3 "$tmp/first/console-died.log"
like "  boot_retries names it" "$(boot_retries "$tmp")" "^VM boots retried .*: 1: .*/first$"
is "the same OUTDIR booted again, cleanly: exit 0" "$(run ok)" 0
is "  its retry still on record" "$(wc -l < "$tmp/first/boot-retried")" 1
ok "  and the dead console" grep -q int3 "$tmp/first/console-died.log"

name=hang; t0=$(date +%s)
is "the kernel hangs before the job, then boots: exit 0" "$(run hang ok)" 0
is "  two boots" "$(cat "$tmp/boots")" 2
ok "  the hang killed after VM_BOOT_TIMEOUT (3 s), not the 900 s timeout" \
	between $(($(date +%s) - t0)) 3 30

name=stale; mkdir -p "$tmp/stale"; echo up > "$tmp/stale/started"
is "a started file left from before does not count: exit 0" "$(run die ok)" 0
is "  two boots" "$(cat "$tmp/boots")" 2

name=started; is "dies after the job started: exit 124" "$(run start-die ok)" 124
is "  one boot only" "$(cat "$tmp/boots")" 1
ok "  no boot-retried" test ! -e "$tmp/started/boot-retried"
like "  says the guest did not finish" "$(cat "$tmp/started.err")" 'did not finish'

name=twice; is "dies before the job twice: exit 124" "$(run die die ok)" 124
is "  two boots, not three" "$(cat "$tmp/boots")" 2
like "  the console's end on stderr" "$(tail -n 1 "$tmp/twice.err")" '^vm.sh: \| .*int3'

name=setuid; is "a job leaving setuid files and device nodes in OUTDIR: exit 0" "$(run setuid)" 0
is "  no setuid or setgid file left on the host" \
	"$(find "$tmp/setuid" -perm /6000 | wc -l)" 0
is "  the files themselves kept, executable" "$(stat -c %a "$tmp/setuid/sub/suid" "$tmp/setuid/sgid" | paste -sd' ')" "755 755"
is "  no device node left on the host" "$(find "$tmp/setuid" \( -type b -o -type c \) | wc -l)" 0
ok "  the guest mounts OUTDIR nosuid and nodev" \
	grep -q 'mount -t 9p -o trans=virtio,version=9p2000.L,nosuid,nodev,msize=262144 out' tests/qemu/vm.sh

name=clean; is "a clean boot: exit 0" "$(run ok)" 0
is "  one boot" "$(cat "$tmp/boots")" 1
ok "  no boot-retried" test ! -e "$tmp/clean/boot-retried"
is "  nothing on stderr" "$(cat "$tmp/clean.err")" ""
like "  the guest CPU has RDRAND (the pool seeded before SMP)" "$(cat "$tmp/args")" ' -cpu qemu64,\+rdrand '

name=norng; is "a guest whose random pool was not ready at the job: exit 0" "$(run norng)" 0
like "  vm.sh says so" "$(cat "$tmp/norng.err")" "^vm.sh: the guest's random pool was not ready when the job started"
done_testing
