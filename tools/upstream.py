#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
tools/upstream.py: lay this checkout's module into a kernel source as
drivers/misc/uidgen/, as a git format-patch series (a cover letter and one
patch per logical piece). Called by tools/upstream.sh, which prepares the
kernel tree (a git repository of a pristine kernel source, tagged).

File-list driven: the driver is whatever module/*.c and module/*.h there
are (without compat.h and module/tests/), built from the objects module/
Kbuild lists; the selftests are selftests/*.c and *.h; the API document is
Documentation/userspace-api.rst, and Documentation/ABI/ if there is one.

Out-of-tree compatibility stays out of tree. module/Kbuild asks the
kernel's headers which API forms they have (its $(shell grep) probes) and
force-includes compat.h; here the same probes are asked of the target tree,
and each source is written with the form that tree has: no compat.h, no
UIDGEN_HAVE_* and no probe reach the series. A probe this script does not
know how to write in-tree is an error, not a silent copy.

Commits are made with git plumbing (a scratch index, commit-tree): the
kernel tree's work tree, HEAD and refs are left alone.
"""
import argparse
import os
import re
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import upstream_split as split  # noqa: E402

P = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
P.add_argument('--repo', required=True, help='this checkout')
P.add_argument('--ksrc', required=True, help='the kernel tree (git)')
P.add_argument('--base', default='pristine', help='the commit to build on')
P.add_argument('--out', required=True, help='directory for the patches')
P.add_argument('--base-name', default='', help='what the base is, for the cover letter')
A = P.parse_args()
REPO = os.path.abspath(A.repo)
KSRC = os.path.abspath(A.ksrc)
A.out = os.path.abspath(A.out)


def die(msg):
    sys.exit('upstream.py: ' + msg)


def git(*args, inp=None, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    r = subprocess.run(['git', '-C', KSRC] + list(args), input=inp,
                       capture_output=True, env=e)
    if r.returncode:
        die('git %s: %s' % (' '.join(args), r.stderr.decode()))
    return r.stdout


def base_file(path):
    return git('show', '%s:%s' % (A.base, path)).decode()


def read(path):
    with open(os.path.join(REPO, path)) as f:
        return f.read()


def repo_git(*args):
    return subprocess.run(['git', '-C', REPO] + list(args), check=True,
                          capture_output=True, text=True).stdout.strip()


# Who the patches are from, and when: the checkout's git identity (or its
# HEAD's author) and HEAD's date, so that the series is the same each time.
def ident():
    name = subprocess.run(['git', '-C', REPO, 'config', 'user.name'],
                          capture_output=True, text=True).stdout.strip()
    mail = subprocess.run(['git', '-C', REPO, 'config', 'user.email'],
                          capture_output=True, text=True).stdout.strip()
    if not name or not mail:
        name, mail = repo_git('log', '-1', '--format=%an%n%ae').split('\n')
    return name, mail


NAME, MAIL = ident()
DATE = repo_git('log', '-1', '--format=%cI')
SOB = 'Signed-off-by: %s <%s>' % (NAME, MAIL)

# ---- The probes: module/Kbuild's, asked of the target tree ------------

KBUILD = read('module/Kbuild')
PROBE_RE = re.compile(
    r"\$\(if \$\(shell grep -sl '([^']*)' \\?\s*\$\(srctree\)/(\S+)\),-D(\w+)\)")
PROBES = {}
for pat, hdr, sym in PROBE_RE.findall(KBUILD):
    # grep's pattern, as a Python one: '.' is any character either way.
    PROBES[sym] = re.search(pat, base_file(hdr)) is not None
if KBUILD.count('$(shell grep') != len(PROBES):
    die('module/Kbuild has a header probe this script cannot read')


# hrtimer_setup(&t, fn, clock, mode); written for a tree without it.
HRTIMER_SETUP = re.compile(
    r'^(\s*)hrtimer_setup\(\s*&([^,]+?),\s*([^,]+?),\s*([^,]+?),\s*([^;]+?)\);',
    re.M)


def hrtimer_setup(text):
    if PROBES['UIDGEN_HAVE_HRTIMER_SETUP']:
        return text

    def old(m):
        ind, t, fn, clk, mode = m.groups()
        return '%shrtimer_init(&%s, %s, %s);\n%s%s.function = %s;' % (
            ind, t, clk, mode, ind, t, fn)
    text = HRTIMER_SETUP.sub(old, text)
    if re.search(r'\bhrtimer_setup\(', text):
        die('an hrtimer_setup() call this script cannot rewrite')
    return text


def vm_flags_mod(text):
    if PROBES['UIDGEN_HAVE_VM_FLAGS_MOD']:
        return text
    die('the target tree has no vm_flags_mod() (before 6.3): not written for it')


# How each probed API is written in-tree, by the define Kbuild sets.
IN_TREE = {
    'UIDGEN_HAVE_HRTIMER_SETUP': hrtimer_setup,
    'UIDGEN_HAVE_VM_FLAGS_MOD': vm_flags_mod,
}
for sym in PROBES:
    if sym not in IN_TREE:
        die('module/Kbuild probes %s: say in IN_TREE how it is written in-tree' % sym)


def driver_source(name):
    # Only the probes Kbuild still has; a leftover of one it dropped is
    # caught below.
    text = read('module/' + name)
    for sym in PROBES:
        text = IN_TREE[sym](text)
    if re.search(r'UIDGEN_HAVE_|UIDGEN_DEVNODE_CONST|"compat\.h"', text):
        die('module/%s: out-of-tree compat left in the in-tree copy' % name)
    return text


# ---- The pieces ---------------------------------------------------------

def listdir(d, exts):
    p = os.path.join(REPO, d)
    return sorted(f for f in os.listdir(p)
                  if f.endswith(exts) and not f.endswith('.mod.c') and
                  os.path.isfile(os.path.join(p, f)))


OUT_OF_TREE_ONLY = {'compat.h'}
DRIVER = [f for f in listdir('module', ('.c', '.h')) if f not in OUT_OF_TREE_ONLY]
KUNIT = ['tests/' + f for f in listdir('module/tests', ('.c', '.h'))]
for f in DRIVER + KUNIT:
    if f not in split.FIRST:
        die('module/%s: say in tools/upstream_split.py FIRST which patch it enters at' % f)

# The objects: Kbuild's uidgen-y, which must name every .c there is, and
# the KUnit objects, which must name every tests/*.c.
m = re.search(r'^uidgen-y\s*:?=\s*(.*)$', KBUILD, re.M)
if not m:
    die('no uidgen-y in module/Kbuild')
OBJS = m.group(1).split()
if sorted(o[:-2] + '.c' for o in OBJS) != [f for f in DRIVER if f.endswith('.c')]:
    die('module/Kbuild uidgen-y (%s) and module/*.c differ' % ' '.join(OBJS))
m = re.search(r'^uidgen-\$\(CONFIG_UIDGEN_KUNIT_TEST\)\s*\+=\s*(.*)$', KBUILD, re.M)
if not m:
    die('no uidgen-$(CONFIG_UIDGEN_KUNIT_TEST) in module/Kbuild')
KUNIT_OBJS = m.group(1).split()
if sorted(o[:-2] + '.c' for o in KUNIT_OBJS) != [f for f in KUNIT if f.endswith('.c')]:
    die('module/Kbuild\'s KUnit objects (%s) and module/tests/*.c differ' % ' '.join(KUNIT_OBJS))


def staged(path, stage):
    try:
        return split.version(path, driver_source(path), stage)
    except split.CutError as e:
        die(str(e))


def kconfig():
    return read('module/Kconfig').rstrip('\n') + '\n'


def make_list(var, op, objs):
    head = '%s\t%s ' % (var, op)
    lines, line = [], head
    for o in objs:
        if len(line.expandtabs()) + len(o) + 1 > 72 and line != head:
            lines.append(line.rstrip() + ' \\')
            line = '\t\t\t '
        line += o + ' '
    lines.append(line.rstrip())
    return lines


def driver_makefile(stage):
    objs = [o for o in OBJS if split.present(o[:-2] + '.c', stage)]
    kobjs = [o for o in KUNIT_OBJS if split.present(o[:-2] + '.c', stage)]
    lines = ['# SPDX-License-Identifier: GPL-2.0',
             'obj-$(CONFIG_UIDGEN)\t+= uidgen.o']
    lines += make_list('uidgen-y', ':=', objs)
    lines += make_list('uidgen-$(CONFIG_UIDGEN_KUNIT_TEST)', '+=', kobjs)
    return '\n'.join(lines) + '\n'


def driver_files(stage, first=False):
    """The driver's files at STAGE: those that enter or change there."""
    prev = split.STAGES[split.stage_index(stage) - 1]
    out = {}
    for f in DRIVER + KUNIT:
        if not split.present(f, stage):
            continue
        text = staged(f, stage)
        if not split.present(f, prev) or staged(f, prev) != text:
            out['drivers/misc/uidgen/' + f] = text
    mk = driver_makefile(stage)
    if first or driver_makefile(prev) != mk:
        out['drivers/misc/uidgen/Makefile'] = mk
    return out


def misc_kconfig(text):
    src = 'source "drivers/misc/uidgen/Kconfig"\n'
    if src in text:
        return text
    i = text.rindex('endmenu')
    return text[:i] + src + text[i:]


def misc_makefile(text):
    return text.rstrip('\n') + '\nobj-$(CONFIG_UIDGEN)\t\t+= uidgen/\n'


def ioctl_number(text):
    # One row, in code order, in the table's columns.
    code = re.search(r'#define UIDGEN_IOC_TYPE\s+(0x[0-9A-Fa-f]+)',
                     read('uapi/linux/uidgen.h')).group(1).upper().replace('0X', '0x')
    seqs = sorted(int(s, 16) for s in re.findall(
        r'_IO\w*\(UIDGEN_IOC_TYPE,\s*(0x[0-9A-Fa-f]+)', read('uapi/linux/uidgen.h')))
    seq = '%02X-%02X' % (seqs[0], seqs[-1]) if len(seqs) > 1 else '%02X' % seqs[0]
    row = '%-6s%-7s%-58s%s\n' % (code, seq, 'linux/uidgen.h',
                                  'uidgen unique IDs, /dev/uid')
    lines = text.splitlines(keepends=True)
    for i, ln in enumerate(lines):
        if re.match(r'0x[0-9A-F]{2}\s', ln) and int(ln[:4], 16) > int(code, 16):
            lines.insert(i, row)
            return ''.join(lines)
    die('no place for %s in ioctl-number.rst' % code)


def maintainers(text, files):
    """The UIDGEN entry, created or given more F: lines, in order."""
    title = 'UIDGEN UNIQUE ID GENERATOR'
    lines = text.split('\n')
    start = lines.index('Maintainers List') if 'Maintainers List' in lines else 0
    if title in lines:
        i = lines.index(title)
        j = i + 1
        while j < len(lines) and lines[j]:
            j += 1
        entry = lines[i:j]
        fl = sorted(set([ln for ln in entry if ln.startswith('F:\t')] +
                        ['F:\t' + f for f in files]))
        entry = [ln for ln in entry if not ln.startswith('F:\t')] + fl
        return '\n'.join(lines[:i] + entry + lines[j:])
    entry = [title, 'M:\t%s <%s>' % (NAME, MAIL), 'S:\tMaintained'] + \
        sorted('F:\t' + f for f in files) + ['']
    for i in range(start + 1, len(lines) - 1):
        if lines[i] and not lines[i - 1] and re.match(r'[A-Z]:\t', lines[i + 1]) \
                and lines[i].upper() > title:
            return '\n'.join(lines[:i] + entry + lines[i:])
    die('no place for the MAINTAINERS entry')


def selftest(name):
    text = read('selftests/' + name)
    return text.replace('#include "kselftest_harness.h"',
                        '#include "../../../kselftest_harness.h"')


SELFTESTS = listdir('selftests', ('.c',))
SELFTEST_HDRS = listdir('selftests', ('.h',))
PROGS = [f[:-2] for f in SELFTESTS]


def module_version():
    h = read('module/internal.h')
    v = [re.search(r'#define UIDGEN_VERSION_%s\s+(\d+)' % k, h)
         for k in ('MAJOR', 'MINOR', 'PATCH')]
    if not all(v):
        die('selftests use UIDGEN_MODULE_VERSION, module/internal.h has no version')
    return '0x%02x%02x%02x' % tuple(int(x.group(1)) for x in v)


def selftest_makefile():
    lines = ['# SPDX-License-Identifier: GPL-2.0',
             '# Run as root with uidgen loaded (or built in): each test sets up',
             '# the node ID it needs or skips; without /dev/uid every test skips.',
             'CFLAGS += -Wall -O2 $(KHDR_INCLUDES)']
    if any('UIDGEN_MODULE_VERSION' in read('selftests/' + f) for f in SELFTESTS):
        lines.append('CFLAGS += -DUIDGEN_MODULE_VERSION=%s' % module_version())
    lines += ['LDLIBS += -lpthread', '']
    lines.append('TEST_GEN_PROGS := ' + ' '.join(PROGS[:1]))
    for p in PROGS[1:]:
        lines.append('TEST_GEN_PROGS += ' + p)
    lines += ['', 'LOCAL_HDRS += ' + ' '.join(SELFTEST_HDRS), '',
              'include ../../../lib.mk']
    return '\n'.join(lines) + '\n'


# What the tests need of the kernel: the driver, and what each test uses
# (debugfs, userfaultfd, time namespaces, CPU hotplug, fail-nth).
SELFTEST_CONFIG = """CONFIG_UIDGEN=m
CONFIG_DEBUG_FS=y
CONFIG_FAULT_INJECTION=y
CONFIG_FAULT_INJECTION_USERCOPY=y
CONFIG_HOTPLUG_CPU=y
CONFIG_TIME_NS=y
CONFIG_USERFAULTFD=y
CONFIG_VMGENID=y
"""


def selftests_targets(text):
    line = 'TARGETS += drivers/misc/uidgen\n'
    if line in text:
        return text
    anchor = 'TARGETS += drivers/dma-buf\n'
    if anchor not in text:
        die('no drivers/dma-buf in tools/testing/selftests/Makefile')
    return text.replace(anchor, anchor + line)


def userspace_doc():
    """Documentation/userspace-api.rst as the kernel's: the interface only.

    What belongs to this project and not to the kernel stays out: the
    pointer to the 1.4 migration notes (not a kernel document), how the
    project's own tests are built, and the libuidgen section (a library
    outside the kernel), which is the last.
    """
    text = read('Documentation/userspace-api.rst')
    cuts = [
        ('kernel-doc:: uapi/linux/uidgen.h', 'kernel-doc:: include/uapi/linux/uidgen.h'),
        ('Coming from 1.4: :doc:`from-1.4`.\n\n', ''),
        ('The contract is ``uapi/linux/uidgen.h``; everything below is pulled from it\n'
         'or describes it. libuidgen, the ``uidgen`` CLI and the selftests include that\n'
         'header rather than copying its numbers.',
         'The contract is ``include/uapi/linux/uidgen.h``; everything below is pulled\n'
         'from it or describes it.'),
        ('(the\nfence unchanged, the ID above ``observed``; libuidgen does)',
         '(the\nfence unchanged, the ID above ``observed``)'),
        ('mode ``0444`` by default\n(udev\'s rule, ``60-uidgen.rules``, sets its mode and group; see the admin\n'
         'guide): every user',
         'mode ``0444`` by default\n(a udev rule may set its mode and group): every user'),
        ('Userspace assigns\nit after every load: ``uidgen state restore`` from the state file at boot,\n'
         '``uidgen set-node``, or ``uidgen-lease``.',
         'Userspace assigns\nit after every load.'),
        ('; the selftests are also built\nwith ``gcc -m32 -static`` and run in the test VM.',
         '.'),
        ('\n``uidgen_decode()`` in libuidgen and ``uidgen decode`` do exactly this (and\n'
         'give the time in ms, rounded down).\n', ''),
    ]
    for old, new in cuts:
        if old not in text:
            die('Documentation/userspace-api.rst: no %r' % old[:50])
        text = text.replace(old, new)
    i = text.find('\nlibuidgen\n=========\n')
    if i < 0:
        die('Documentation/userspace-api.rst: no libuidgen section')
    return text[:i].rstrip('\n') + '\n'


def userspace_index(text):
    # Last in "Devices and I/O".
    m = re.search(r'Devices and I/O\n=+\n\n\.\. toctree::\n(   :.*\n)*\n((   \S.*\n)+)', text)
    if not m:
        die('no "Devices and I/O" toctree in Documentation/userspace-api/index.rst')
    if '   uidgen\n' in m.group(2):
        return text
    return text[:m.end(2)] + '   uidgen\n' + text[m.end(2):]


ABI = []
if os.path.isdir(os.path.join(REPO, 'Documentation/ABI')):
    for d, _, fs in os.walk(os.path.join(REPO, 'Documentation/ABI')):
        ABI += [os.path.relpath(os.path.join(d, f), REPO) for f in fs]
ABI.sort()

# ---- The series: (subject, body, {path: content or function of base}) --

UAPI = 'include/uapi/linux/uidgen.h'
IOCTL = 'Documentation/userspace-api/ioctl/ioctl-number.rst'
MAINT = 'MAINTAINERS'
DRV = 'drivers/misc/uidgen/'
ST = 'tools/testing/selftests/drivers/misc/uidgen/'

# kunit.py run --kunitconfig=drivers/misc/uidgen
KUNITCONFIG = """CONFIG_KUNIT=y
CONFIG_UIDGEN=y
CONFIG_UIDGEN_KUNIT_TEST=y
"""


def with_files(stage, extra, first=False):
    d = driver_files(stage, first)
    d.update(extra)
    return d


PATCHES = [
    ('uapi: add linux/uidgen.h, the /dev/uid interface',
     """The ioctls, structures and ID layout of /dev/uid, a character device
that mints 64-bit, time-sortable, machine-unique IDs (Snowflake-style: a
timestamp, a node ID, a per-CPU slot and a sequence number). The driver
follows in the next patches, one part of this interface at a time; the
header comes first, whole, so that the ABI can be reviewed in one place.

Register its ioctl code in ioctl-number.rst.""",
     {UAPI: read('uapi/linux/uidgen.h'), IOCTL: ioctl_number,
      MAINT: lambda t: maintainers(t, [UAPI])}),

    ('misc: uidgen: add the generator core',
     """The arithmetic every ID comes from, as plain functions of a layout, a
slot and a "now", with no device, file or lock, so that KUnit drives it
with an injected clock: layout checks, the tick clock (CLOCK_BOOTTIME,
anchored to CLOCK_REALTIME once, so that a wall-clock step cannot move
it), floors and the lead they leave, which heals at 1/16 speed, and slot
reservation. A slot's state is the last (tick << seq_bits | seq) it
issued, and handing out a run is one compare-and-swap that moves it
forward: two callers never win the same run, whatever they do between
reading the clock and the swap. That is the whole uniqueness argument
within a slot; the slot and node fields cover the rest.

CONFIG_UIDGEN_KUNIT_TEST (default KUNIT_ALL_TESTS) runs the tests: every
function here is called by them, and by the device from the next patch
on. Until then the module holds no device.""",
     with_files('core', {
         DRV + 'Kconfig': kconfig(),
         DRV + '.kunitconfig': KUNITCONFIG,
         'drivers/misc/Kconfig': misc_kconfig,
         'drivers/misc/Makefile': misc_makefile,
         MAINT: lambda t: maintainers(t, [DRV])}, first=True)),

    ('misc: uidgen: add /dev/uid, with the node ID\'s life and lease',
     """The device: read() and UIDGEN_IOC_BATCH mint IDs, UIDGEN_IOC_INFO
reports the layout and the node's state, and UIDGEN_IOC_ASSIGN, RENEW and
REVOKE (CAP_SYS_ADMIN) give the node ID its life: a floor at assignment
(nothing can be issued under a node ID whose history is unknown), a
grant (persist before you issue: no tick past what userspace has
persisted), a lease deadline after which nothing leaves the kernel
under the node ID and a fencing token that a superseded holder cannot
come back with.

The rules (noderules.c) are pure functions of a state, a request and a
"now", tested by KUnit from one table and a property test; node.c
carries out their verdict under the node's mutex, with an hrtimer for
the deadline. Minting takes no lock: it runs in an RCU-sched read-side
section with page faults disabled, and a revoke clears the node ID and
waits for a grace period before it returns. Since no minting path can
sleep or fault in that section, a revoke ends in bounded time whatever
userspace does with its buffers.

A VM generation ID change (CONFIG_VMGENID) revokes the node ID: a clone
or a restored snapshot has its node ID taken away once its kernel
handles the new generation ID. Not at once: the Kconfig help states the
window and what it means for repeats.

Reading IDs needs no privilege (the node is 0444), as reading
/dev/urandom does not. The layout is fixed for the life of the load by
read-only module parameters; INFO reports it.""",
     with_files('node', {})),

    ('misc: uidgen: add UIDGEN_IOC_RESERVE and mmap() of the fence page',
     """RESERVE hands out a run of consecutive IDs in one tick of the calling
CPU's slot and copies out only its bounds, with when the run's tick ends
and the fence generation it belongs to, so that a caller mints a tick's
worth with one system call. The fence (struct uidgen_page.fence, which
every revoke has moved since the previous patch) is now mapped
read-only by mmap(): a cache checks it before it hands out each ID, and
a revoke moves it before it returns, so a cached run stops with the node
ID. The mapping is shared and read-only: VM_MAYWRITE is cleared and
VM_DONTEXPAND set.""",
     with_files('reserve', {})),

    ('misc: uidgen: add UIDGEN_IOC_OBSERVE',
     """Causal order across machines: after OBSERVE of an ID minted anywhere
(any node, same layout), every ID this machine issues is greater. The
clock is moved to the tick after the observed one, as a floor moves it
(the lead heals at 1/16 speed); an ID whose tick begins more than
observe_ahead_ms (default 500, at most 60000) after this machine's clock
is refused with EDOM, so that one wrong clock elsewhere cannot drag this
one ahead. The page's observed ID is raised, so that runs cached in
userspace stop below it.

Its own patch: it is an addition to the generator core that nothing
else needs, with its own parameter and its own tests.""",
     with_files('observe', {})),

    ('misc: uidgen: add the status files and the documentation',
     """What INFO does not carry goes to /sys/class/misc/uid/: the ID clock
against the wall clock (now_ms, anchor_ms, clock_offset_ms) and the
counters (issued, waits, behind, grant_waits, observe_moved,
observe_refused), described in Documentation/ABI/testing/
sysfs-class-misc-uid; the per-slot table is in debugfs. Nothing there
repeats INFO.

Documentation/userspace-api/uidgen.rst describes the interface: the
device, the ioctls with their sizes and errnos, the ID layout, runs and
the fence page, with the uapi header's kernel-doc.""",
     with_files('status', dict(
         [('Documentation/userspace-api/uidgen.rst', userspace_doc()),
          ('Documentation/userspace-api/index.rst', userspace_index),
          (MAINT, lambda t: maintainers(
              t, ['Documentation/userspace-api/uidgen.rst'] + ABI))] +
         [(f, read(f)) for f in ABI]))),

    ('selftests: drivers: add uidgen',
     """kselftests for /dev/uid, run by run_kselftest.sh: IDs, sizes and
errnos of every call, node ID assignment and revocation, a node's life
across reloads and time namespaces, blocking waits, OBSERVE, copies that
fault (userfaultfd) and, with CONFIG_FAULT_INJECTION_USERCOPY, copies
that fail.

Each test sets up the node ID it needs or skips, and restores what it
changed; without /dev/uid every program skips. The tests that step
CLOCK_REALTIME or take a CPU offline run only with --disruptive.""",
     dict([(ST + f, selftest(f)) for f in SELFTESTS + SELFTEST_HDRS] +
          [(ST + 'Makefile', selftest_makefile()),
           (ST + 'config', SELFTEST_CONFIG),
           (ST + 'settings', 'timeout=600\n'),
           (ST + '.gitignore',
            ''.join(p + '\n' for p in ['# SPDX-License-Identifier: GPL-2.0'] + PROGS)),
           ('tools/testing/selftests/Makefile', selftests_targets),
           (MAINT, lambda t: maintainers(t, [ST]))])),
]

COVER = """uidgen: /dev/uid, time-sortable unique IDs from the kernel

/dev/uid mints 64-bit, time-sortable, machine-unique IDs (Snowflake-style:
a timestamp, a node ID, a per-CPU slot and a sequence number) for database
keys and the like.

Why in the kernel, and not a daemon or a library: two things only the
kernel has. Every minter on the machine is behind one clock and one set of
slots, whatever process, container or language it is, and whether or not
it cooperates: a daemon has that only for the clients that go through it,
a library only within one process, and two copies of a library with the
same node ID repeat each other's IDs. And the kernel is told, through the
VM generation ID (CONFIG_VMGENID), when the machine itself has been
copied: a clone or a restored snapshot has its node ID revoked once its
kernel has handled the new generation ID, with nothing in userspace
running or trusted. Not at once: until then the copy mints under the old
node ID in the ticks the original mints in after the snapshot, and can
repeat the original's IDs. Measured in a QEMU TCG guest (2 vCPUs, 10
restores, a reader minting without pause), that window was 86 to 770 ms
of the copy's running time (median 265 ms; 1 to 19,538 IDs, 0 to 6,978 of
them the original's too). A VM that mints must have its node ID revoked
before it is cloned or snapshotted; the Kconfig help says so. What a
daemon could do as well stays out: the node ID is assigned from
userspace (an administrator or a lease agent), and the persistence of the
floor and grant is userspace's, which the kernel only enforces.

The series, one concern a patch, each building on its own (W=1, with its
KUnit tests):

  1. the uapi header, whole, so that the ABI is reviewed in one place;
  2. the generator core, pure functions with their KUnit suite (the
     suite is the only caller until patch 3; the module has no device
     yet);
  3. /dev/uid with the node ID's life and lease: read(), BATCH, INFO,
     ASSIGN, RENEW, REVOKE, the node rules with their KUnit table, the
     VM-fork revoke;
  4. RESERVE and mmap() of the fence page: runs that userspace hands out
     itself, and the fence that stops them;
  5. OBSERVE (causal order across machines), on its own: it is an
     addition to the core that nothing else in the series needs, it
     brings its own parameter and tests, and a reviewer can take or drop
     it without touching the rest;
  6. the status files (sysfs, debugfs) and the documentation;
  7. the kselftests, which run under run_kselftest.sh.

Base: %s. Generated from the uidgen tree at %s by tools/upstream.sh, which
writes each kernel API in the form this base has%s; the out-of-tree build's
compatibility header is not part of the series.
"""

# ---- Commit them ----------------------------------------------------------

os.makedirs(A.out, exist_ok=True)
for f in os.listdir(A.out):
    if f.endswith('.patch'):
        os.unlink(os.path.join(A.out, f))
index = os.path.join(A.out, '.index')
ENV = {'GIT_INDEX_FILE': index, 'GIT_AUTHOR_NAME': NAME, 'GIT_AUTHOR_EMAIL': MAIL,
       'GIT_COMMITTER_NAME': NAME, 'GIT_COMMITTER_EMAIL': MAIL,
       'GIT_AUTHOR_DATE': DATE, 'GIT_COMMITTER_DATE': DATE}
git('read-tree', A.base, env=ENV)
state = {}   # path -> content after the patches so far
head = git('rev-parse', A.base + '^{commit}').decode().strip()
base = head
for subject, body, files in PATCHES:
    for path, content in files.items():
        if callable(content):
            content = content(state[path] if path in state else base_file(path))
        state[path] = content
        sha = git('hash-object', '-w', '--stdin', inp=content.encode()).decode().strip()
        git('update-index', '--add', '--cacheinfo', '100644,%s,%s' % (sha, path), env=ENV)
    tree = git('write-tree', env=ENV).decode().strip()
    msg = '%s\n\n%s\n\n%s\n' % (subject, body, SOB)
    head = git('commit-tree', tree, '-p', head, inp=msg.encode(), env=ENV).decode().strip()
os.unlink(index)

git('format-patch', '-q', '--cover-letter', '--no-signature', '--zero-commit',
    '--base=' + base, '-o', os.path.abspath(A.out), '%s..%s' % (base, head))
cover = os.path.join(A.out, '0000-cover-letter.patch')
with open(cover) as f:
    text = f.read()
title, blurb = COVER.split('\n\n', 1)
how = '' if PROBES.get('UIDGEN_HAVE_HRTIMER_SETUP', True) else \
    ' (here: hrtimer_init(), as this base has no hrtimer_setup())'
blurb = blurb % (A.base_name or A.base, repo_git('describe', '--always', '--dirty'), how)
blurb = '\n\n'.join(p if p.startswith('  ') else textwrap.fill(p, 72, break_on_hyphens=False)
                    for p in blurb.strip().split('\n\n'))
text = text.replace('*** SUBJECT HERE ***', title).replace('*** BLURB HERE ***', blurb.rstrip())
with open(cover, 'w') as f:
    f.write(text)
for f in sorted(os.listdir(A.out)):
    if f.endswith('.patch'):
        print(os.path.join(A.out, f))
