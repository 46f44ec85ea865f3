#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# uidgen's metrics scraped from Debian's prometheus-node-exporter on the
# user's own machine, the admin guide verbatim
# (Documentation/admin-guide.rst, "Metrics"; make check-system): the
# Debian 12 guest of tests/system/machine.sh installs make deb's packages
# and prometheus-node-exporter (staged offline in the image by image.sh)
# and enables uidgen-metrics.timer as the guide says; the test scrapes
# http://localhost:9100/metrics in the guest with curl and checks the
# uidgen_ series: their exact names and types, promtool's lint (Prometheus's
# naming conventions), the exporter's textfile collector without error,
# values equal to sysfs and `uidgen stats` read at the same time, counters
# that move by the IDs drawn, the timer writing on its own, and
# uidgen_up 0 with the module unloaded.
#
#   tests/system/metrics.sh [-o OUTDIR]
# $PROMTOOL: promtool (Debian's prometheus package; default: promtool in
# PATH), run on the host. Prints TAP and a "# Totals:" line; exit status
# 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
. tests/system/machine.sh
set +e
out=
while getopts "o:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
kver=guest
host_out system-metrics
run=$out/run
promtool=${PROMTOOL:-promtool}
. tests/system/lib.sh
trap '[ ! -s "$run/qemu.pid" ] || m_kill "$run"' EXIT
echo "TAP version 13"

install=$(guide_block tests/system/static.sh "apt install linux-headers-")
metrics=$(guide_block tests/system/metrics.sh "apt install prometheus-node-exporter")
check "the admin guide's install block (walked by static.sh) and its metrics block (by this suite)" \
	'[ -n "$install" ] && [ -n "$metrics" ] && cat "$install" "$metrics"'
check "make deb" 'make -s deb > "$out/deb.log" 2>&1'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
check "the guest boots (systemd, ssh login)" 'm_start "$run" > "$out/login-0"'
[ "$fail" -eq 0 ] || { tap_end; exit 1; }
check "the packages installed with the guide's block, node ID 7 active" \
	'sys_put_debs && guide_run install "$install" && m_ssh "$run" uidgen info | grep -q "^node_id: *7$"'
check "the guide's metrics block: prometheus-node-exporter installed (offline), uidgen-metrics.timer enabled and started" \
	'guide_run metrics "$metrics" &&
	 [ "$(m_ssh "$run" systemctl is-enabled uidgen-metrics.timer prometheus-node-exporter.service | xargs)" = "enabled enabled" ]'

# scrape N: node-exporter's page, in $out/scrape-N (the uidgen_ lines also
# in $out/uidgen-N).
scrape() {
	m_ssh "$run" "curl -sf http://localhost:9100/metrics" > "$out/scrape-$1" &&
	grep '^uidgen_\|^# [A-Z]* uidgen_' "$out/scrape-$1" > "$out/uidgen-$1"
}
# value N SERIES: SERIES's value in scrape N, to the ms (node-exporter
# writes its own floats: 1.796311263201e+09 for 1796311263.201); num V:
# V the same way.
value() {
	awk -v s="$2" '$1 == s { printf "%.3f\n", $2 }' "$out/uidgen-$1"
}
num() {
	awk -v v="$1" 'BEGIN { printf "%.3f\n", v }'
}
for i in $(seq 60); do scrape 0 && grep -q '^uidgen_up ' "$out/uidgen-0" && break; sleep 2; done
check "node-exporter serves uidgen's series from the textfile collector, without error" \
	'cat "$out/uidgen-0" && grep -q "^node_textfile_mtime_seconds{file=\".*uidgen.prom\"} " "$out/scrape-0" &&
	 grep -qx "node_textfile_scrape_error 0" "$out/scrape-0"'
cat > "$out/types-want" <<-'TYPES'
uidgen_anchor_timestamp_seconds gauge
uidgen_behind_total counter
uidgen_clock_offset_seconds gauge
uidgen_clock_timestamp_seconds gauge
uidgen_exhausts_timestamp_seconds gauge
uidgen_floor_timestamp_seconds gauge
uidgen_grant_timestamp_seconds gauge
uidgen_grant_waits_total counter
uidgen_high_water_timestamp_seconds gauge
uidgen_ids_issued_total counter
uidgen_max_borrow_ticks gauge
uidgen_node_id gauge
uidgen_node_state gauge
uidgen_slot_borrowed_ticks gauge
uidgen_slot_ids_issued_total counter
uidgen_token_info gauge
uidgen_up gauge
uidgen_waits_total counter
TYPES
# A static node ID has no lease deadline: uidgen_lease_deadline_seconds
# is absent.
check "the series are exactly these, with these types (counters _total, times in seconds)" \
	'sed -n "s/^# TYPE //p" "$out/uidgen-0" | sort > "$out/types-got"; diff "$out/types-want" "$out/types-got"'
check "promtool check metrics: uidgen's series follow Prometheus's naming conventions" \
	'command -v "$promtool" || { echo "no promtool: apt-get install prometheus (or PROMTOOL=path)"; false; } &&
	 "$promtool" check metrics < "$out/uidgen-0"'

# Values against sysfs and uidgen stats: the timer stopped, nothing draws;
# one run of the service, then the sources and the scrape.
m_ssh "$run" systemctl stop uidgen-metrics.timer
snapshot() {
	m_ssh "$run" "systemctl start uidgen-metrics.service && cd /sys/class/misc/uid && echo \$(cat issued waits behind grant_waits) && uidgen stats" > "$out/src-$1" &&
	scrape "$1"
}
snapshot 1
read -r issued waits behind gwaits < "$out/src-1"
stat_of() { awk -v k="$2" '$1 == k { print $2; exit }' "$out/src-$1"; }
ms_s() { printf '%d.%03d' "$(($1 / 1000))" "$(($1 % 1000))"; }
check "uidgen_up 1, node ID 7, state active; counters equal sysfs (issued $issued)" \
	'[ "$(value 1 uidgen_up)" = 1.000 ] && [ "$(value 1 uidgen_node_id)" = 7.000 ] &&
	 [ "$(value 1 "uidgen_node_state{state=\"active\"}")" = 1.000 ] && [ "$(value 1 "uidgen_node_state{state=\"none\"}")" = 0.000 ] &&
	 [ "$(value 1 uidgen_ids_issued_total)" = "$(num "$issued")" ] && [ "$(value 1 uidgen_waits_total)" = "$(num "$waits")" ] &&
	 [ "$(value 1 uidgen_behind_total)" = "$(num "$behind")" ] && [ "$(value 1 uidgen_grant_waits_total)" = "$(num "$gwaits")" ]'
# The persister raises the grant every 20 s: the scrape's may be the one
# before uidgen stats's.
check "the floor, high water and token equal uidgen stats's, the grant at most its ($(stat_of 1 floor_ms), $(stat_of 1 grant_ms), $(stat_of 1 high_water_ms) ms; token $(stat_of 1 token))" \
	'[ "$(value 1 uidgen_floor_timestamp_seconds)" = "$(num "$(ms_s "$(stat_of 1 floor_ms)")")" ] &&
	 awk -v m="$(value 1 uidgen_grant_timestamp_seconds)" -v s="$(ms_s "$(stat_of 1 grant_ms)")" "BEGIN { exit !(m + 0 > 0 && m + 0 <= s + 0) }" &&
	 [ "$(value 1 uidgen_high_water_timestamp_seconds)" = "$(num "$(ms_s "$(stat_of 1 high_water_ms)")")" ] &&
	 [ "$(value 1 "uidgen_token_info{token=\"$(stat_of 1 token)\"}")" = 1.000 ]'
check "the per-slot counters add up to uidgen_ids_issued_total" \
	'[ "$(awk "/^uidgen_slot_ids_issued_total/ { s += \$2 } END { printf \"%.3f\", s }" "$out/uidgen-1")" = "$(num "$issued")" ]'
m_ssh "$run" "uidgen -n 123456 > /dev/null"
snapshot 2
read -r issued2 _ < "$out/src-2"
check "123456 IDs drawn: uidgen_ids_issued_total went from $issued to $(value 2 uidgen_ids_issued_total), as sysfs ($issued2)" \
	'[ "$(value 2 uidgen_ids_issued_total)" = "$(num "$issued2")" ] && [ "$((issued2 - issued))" -ge 123456 ] &&
	 [ "$(value 2 uidgen_high_water_timestamp_seconds)" != "$(value 1 uidgen_high_water_timestamp_seconds)" ]'
# The timer on its own: two scrapes 20 s apart while IDs are drawn.
m_ssh "$run" systemctl start uidgen-metrics.timer
m_ssh "$run" "uidgen -n 1000 > /dev/null"
sleep 20
scrape 3
check "the timer writes on its own: a scrape 20 s later shows the 1000 IDs drawn since ($(value 3 uidgen_ids_issued_total))" \
	'awk -v m="$(value 3 uidgen_ids_issued_total)" -v w="$((issued2 + 1000))" "BEGIN { exit !(m + 0 >= w) }" &&
	 [ "$(value 3 uidgen_clock_timestamp_seconds)" != "$(value 2 uidgen_clock_timestamp_seconds)" ]'
# The module unloaded: uidgen_up 0 and nothing else.
m_ssh "$run" "systemctl stop uidgen-metrics.timer uidgen-state.service && modprobe -r uidgen && systemctl start uidgen-metrics.service"
scrape 4
check "with the module unloaded: uidgen_up 0 and no other series, the collector without error" \
	'cat "$out/uidgen-4"; [ "$(grep -v "^#" "$out/uidgen-4")" = "uidgen_up 0" ] &&
	 grep -qx "node_textfile_scrape_error 0" "$out/scrape-4"'
check "the guest powers off cleanly" 'm_stop "$run"'
tap_end
