# SPDX-License-Identifier: GPL-2.0
"""
tools/upstream_split.py: how tools/upstream.py cuts module/ into a series
of patches that each build on their own: the stages, the stage at which
each file enters, and, for a file that later stages add to, what each
later stage added, so that the earlier versions can be written without
it. module/ itself is always the whole driver; the earlier versions exist
only in the series.

A removal names what it takes out by a pattern that must match (a pattern
that no longer matches is an error, never a silent no-op), so that a
change in module/ that moves the pieces is caught when the series is
made; tests/upstream.sh then builds every patch (W=1, sparse) and runs
checkpatch on each, which catches a cut that leaves something behind.

Removals, each (kind, ...):
  ('def', RE)          a top-level definition: the first line matching RE,
                       the comment right above it, through its closing
                       brace or its semicolon
  ('stmt', RE)         the same without the comment above
  ('line', RE)         every line matching RE (at least one)
  ('doc', NAME)        a kernel-doc member line " * @NAME:" and its
                       continuation lines
  ('range', A, B)      from the line matching A (with the comment above
                       it) up to the line matching B (with the comment
                       above it), B kept
  ('sub', OLD, NEW)    OLD (exact text, which must occur) becomes NEW
"""
import re

# The patches, in order. 'uapi' is the header and its ioctl number; the
# driver's stages follow; 'selftests' is the last.
STAGES = ['uapi', 'core', 'node', 'reserve', 'observe', 'status', 'selftests']

# The stage each file of module/ enters at (every file must be named).
FIRST = {
    'gen.c': 'core', 'gen.h': 'core', 'main.c': 'core',
    'tests/gen_kunit.c': 'core',
    'noderules.c': 'node', 'noderules.h': 'node', 'node.c': 'node',
    'node.h': 'node', 'mint.c': 'node', 'dev.c': 'node', 'params.c': 'node',
    'internal.h': 'node', 'tests/noderules_kunit.c': 'node',
    'tests/noderules_cases.h': 'node', 'tests/noderules_props.h': 'node',
    'status.c': 'status',
}

# What each stage adds to files that entered before it.
REMOVE = {
    # /dev/uid, node life and lease: the core's main.c is only the
    # module's description, and its KUnit suite only the generator's tests.
    'node': {
        'main.c': [
            ('range', r'^/\*$', r'^MODULE_DESCRIPTION'),
            ('line', r'^MODULE_VERSION'),
            ('sub', '// SPDX-License-Identifier: GPL-2.0\n',
             '// SPDX-License-Identifier: GPL-2.0\n'
             '/*\n'
             ' * uidgen: the module. Its device, /dev/uid, and module init and exit\n'
             ' * come with the node ID\'s life; until then it holds the generator\n'
             ' * core (gen.c) and, with CONFIG_UIDGEN_KUNIT_TEST, its tests.\n'
             ' */\n'
             '#include <linux/module.h>\n\n'),
        ],
        'tests/gen_kunit.c': [
            ('range', r'^/\* A node of the test\'s own', r'^/\* A grant caps'),
            ('line', r'KUNIT_CASE(_SLOW)?\(uidgen_node_'),
            ('line', r'^#include "\.\./internal\.h"'),
            ('sub', ' Plus the node\'s life (assignment with a\n'
             ' * floor, tokens, the deadline, the VM-fork revoke) on nodes the\n'
             ' * tests make for themselves, grants, and kthreads\n'
             ' * on every CPU hammering one slot and all slots.',
             ' Plus grants, and kthreads on every CPU\n'
             ' * hammering one slot and all slots.'),
        ],
    },
    # UIDGEN_IOC_RESERVE and mmap() of the fence page.
    'reserve': {
        'dev.c': [
            ('def', r'^static long uidgen_ioctl_reserve\('),
            ('line', r'^\tstruct uidgen_reserve reserve;'),
            ('stmt', r'^\t\[_IOC_NR\(UIDGEN_IOC_RESERVE\)\] ='),
            ('sub', '\t * RESERVE and BATCH are the minting path: with retpolines, called\n'
             '\t * directly rather than through one.\n',
             '\t * BATCH is the minting path: with retpolines, called directly\n'
             '\t * rather than through one.\n'),
            ('sub', 'INDIRECT_CALL_2(op->fn, uidgen_ioctl_reserve, uidgen_ioctl_batch,\n'
             '\t\t\t       file, &buf, uarg, usize);',
             'INDIRECT_CALL_1(op->fn, uidgen_ioctl_batch, file, &buf, uarg,\n'
             '\t\t\t       usize);'),
            ('def', r'^static vm_fault_t uidgen_vm_fault\('),
            ('def', r'^static const struct vm_operations_struct uidgen_vm_ops'),
            ('def', r'^static int uidgen_mmap\('),
            ('line', r'^\t\.mmap\t+= uidgen_mmap,'),
            ('sub', ' (argument checks and dispatch; mint.c hands out the IDs) and the fence\n'
             ' * page mmap() maps.',
             ' (argument checks and dispatch; mint.c hands out the IDs).'),
        ],
        'mint.c': [
            ('def', r'^long uidgen_reserve_once\('),
            ('sub', 'The minting path: read() of /dev/uid, and the IDs UIDGEN_IOC_BATCH and\n'
             ' * UIDGEN_IOC_RESERVE hand out (dev.c checks their arguments and calls in\n'
             ' * here); waiting',
             'The minting path: read() of /dev/uid, and the IDs UIDGEN_IOC_BATCH\n'
             ' * hands out (dev.c checks its arguments and calls in here);\n'
             ' * waiting'),
        ],
        'internal.h': [
            ('stmt', r'^long uidgen_reserve_once\('),
        ],
    },
    # UIDGEN_IOC_OBSERVE: causal order across machines.
    'observe': {
        'gen.c': [
            ('def', r'^int uidgen_observe_check\('),
            ('def', r'^int uidgen_observe\('),
        ],
        'gen.h': [
            ('doc', 'observe_ahead_ns'),
            ('line', r'^\tu64 observe_ahead_ns;'),
            ('line', r'^int uidgen_observe(_check)?\('),
        ],
        'node.c': [
            ('def', r'^int uidgen_node_observe\('),
        ],
        'node.h': [
            ('line', r'^int uidgen_node_observe\('),
        ],
        'dev.c': [
            ('def', r'^static long uidgen_ioctl_observe\('),
            ('line', r'^\tstruct uidgen_observe observe;'),
            ('stmt', r'^\t\[_IOC_NR\(UIDGEN_IOC_OBSERVE\)\] ='),
        ],
        'params.c': [
            ('range', r'^#define UIDGEN_OBSERVE_AHEAD_MAX_MS', r'^struct uidgen_layout uidgen_params_layout\('),
            ('def', r'^unsigned int uidgen_params_observe_ahead_ms\('),
        ],
        'main.c': [
            ('stmt', r'^\tg->observe_ahead_ns = '),
        ],
        'internal.h': [
            ('doc', 'observe_moved'),
            ('doc', 'observe_refused'),
            ('line', r'^\tatomic64_t observe_(moved|refused);'),
            ('line', r'^unsigned int uidgen_params_observe_ahead_ms\('),
        ],
        'tests/gen_kunit.c': [
            ('range', r'^#define OBS_AHEAD_NS', r'^#define HAMMER_IDS'),
            ('range', r'^#define ORACE_OBSERVES', r'^static struct kunit_case uidgen_cases'),
            ('line', r'^ \* Observes, and observes racing minting on every CPU\.'),
            ('line', r'KUNIT_CASE(_SLOW)?\(uidgen_observe_'),
        ],
    },
    # The status files in sysfs and the slot table in debugfs.
    'status': {
        'internal.h': [
            ('doc', 'debugfs'),
            ('line', r'^\tstruct dentry \*debugfs;'),
            ('line', r'^struct dentry;'),
            ('range', r'^/\* status\.c: sysfs status, debugfs \*/', r'^/\* mint\.c: '),
        ],
        'main.c': [
            ('line', r'^\tuidgen_debugfs_(init|exit)\(ud\);'),
        ],
        'dev.c': [
            ('line', r'^\t\t\.groups\t= uidgen_groups,'),
        ],
    },
}


def stage_index(stage):
    return STAGES.index(stage)


def present(path, stage):
    """Whether module/PATH is in the driver at STAGE."""
    return stage_index(FIRST[path]) <= stage_index(stage)


class CutError(Exception):
    pass


def _find(lines, rx, start=0):
    r = re.compile(rx)
    for i in range(start, len(lines)):
        if r.search(lines[i]):
            return i
    raise CutError('no line matches %r' % rx)


def _comment_above(lines, i):
    """The first line of the comment block right above line I, or I."""
    if i > 0 and lines[i - 1].rstrip().endswith('*/'):
        j = i - 1
        while j >= 0 and not lines[j].lstrip().startswith('/*'):
            j -= 1
        if j >= 0:
            return j
    return i


def _end(lines, i):
    """The last line of the definition or statement that starts at I."""
    depth = 0
    opened = False
    for j in range(i, len(lines)):
        code = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'|/\*.*?\*/|//.*', '', lines[j])
        for c in code:
            if c in '({[':
                depth += 1
                opened = True
            elif c in ')}]':
                depth -= 1
        s = code.rstrip()
        if depth == 0:
            if s.startswith('#') and not s.endswith('\\'):
                return j
            if s.endswith(';') or s.endswith(',') or (opened and s.endswith('}')):
                return j
    raise CutError('no end to the statement at %r' % lines[i])


def _tidy(lines, i):
    """After a cut at I: no two blank lines, no blank line after { or before }."""
    while 0 < i < len(lines) and lines[i] == '' and \
            (lines[i - 1] == '' or lines[i - 1].rstrip().endswith('{')):
        del lines[i]
    if 0 < i < len(lines) and lines[i - 1] == '' and lines[i].lstrip().startswith('}'):
        del lines[i - 1]
    if i == len(lines) - 1 and lines[i] == '' and i > 0 and lines[i - 1] == '':
        del lines[i]


def cut(text, ops):
    """TEXT with OPS (the removals above) undone."""
    for op in ops:
        kind = op[0]
        if kind == 'sub':
            if op[1] not in text:
                raise CutError('no %r' % op[1][:60])
            text = text.replace(op[1], op[2], 1)
            continue
        lines = text.split('\n')
        if kind in ('def', 'stmt'):
            i = _find(lines, op[1])
            s = _comment_above(lines, i) if kind == 'def' else i
            e = _end(lines, i)
            del lines[s:e + 1]
            _tidy(lines, s)
        elif kind == 'line':
            r = re.compile(op[1])
            keep = [ln for ln in lines if not r.search(ln)]
            if len(keep) == len(lines):
                raise CutError('no line matches %r' % op[1])
            lines = keep
        elif kind == 'doc':
            i = _find(lines, r'^ \* @%s:' % re.escape(op[1]))
            e = i + 1
            while e < len(lines) and lines[e].startswith(' *\t'):
                e += 1
            del lines[i:e]
        elif kind == 'range':
            a = _comment_above(lines, _find(lines, op[1]))
            b = _comment_above(lines, _find(lines, op[2], a + 1))
            del lines[a:b]
            _tidy(lines, a)
        else:
            raise CutError('unknown removal %r' % kind)
        text = '\n'.join(lines)
    return text


def version(path, text, stage):
    """module/PATH's TEXT as it is at STAGE: what later stages add, cut out."""
    for later in reversed(STAGES[stage_index(stage) + 1:]):
        ops = REMOVE.get(later, {}).get(path)
        if ops:
            try:
                text = cut(text, ops)
            except CutError as e:
                raise CutError('module/%s, the %s stage: %s' % (path, later, e))
    return text
