# No import cycle between the project's folders. Every Python file the
# checkout tracks (and vm/session/ks, a Python script with no extension)
# is read with ast; each import of a module of the project gives an edge
# from the importing file's folder to the module's. A folder is a
# top-level folder, or vm/'s sub-folder (vm/session and vm/host are
# different jobs); a lab's own files belong to labs. The folders and
# their edges must form no cycle: the host's session code is at the
# bottom, the labs, the gdb commands, the book and the tests above it.
# The check then proves it can fail, on the same edges with one planted
# back (vm/session importing labs).
import ast
import os
import subprocess

from tests.checklib import TOP, expect, log

# The host's packages, imported from the top of the checkout; the gdb
# side's package, which gdb's loader (gdb-scripts/load.py) finds.
PACKAGES = ('vm', 'labs', 'tests', 'book')
GDB_PACKAGE = 'kstack'


def folder(path):
    parts = path.split('/')
    return '/'.join(parts[:2]) if parts[0] == 'vm' and len(parts) > 2 else parts[0]


def imported(path):
    """The full names of what PATH imports (a from-import's names each
    with its module's)."""
    with open(os.path.join(TOP, path)) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield from (node.module + '.' + a.name for a in node.names)


def home(name):
    """The folder of the project that holds the module NAME, or None."""
    top = name.split('.')[0]
    if top in PACKAGES:
        return folder(name.replace('.', '/'))
    return 'gdb-scripts' if top == GDB_PACKAGE else None


def edges():
    """{(from folder, to folder): [an import that makes it]}."""
    files = subprocess.run(['git', '-C', TOP, 'ls-files', '*.py'],
                           stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    out = {}
    for path in files:
        for name in imported(path):
            to = home(name)
            if to and to != folder(path):
                out.setdefault((folder(path), to), []).append(
                    '%s imports %s' % (path, name))
    return out


def cycle(pairs):
    """A cycle of folders in the edges PAIRS, as a list, or None."""
    graph = {}
    for a, b in pairs:
        graph.setdefault(a, set()).add(b)
    state, path = {}, []

    def visit(node):
        state[node] = 'open'
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 'open':
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 'done'
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


found = edges()
for (a, b), why in sorted(found.items()):
    log('%s -> %s: %s%s' % (a, b, why[0], ' (and %d more)' % (len(why) - 1) if len(why) > 1 else ''))
loop = cycle(found)
expect(found and loop is None, 'no import cycle between the folders (%d edges among %d '
       'folders)' % (len(found), len({f for pair in found for f in pair})),
       loop and ' -> '.join(loop) + ': ' + '; '.join(
           found[(a, b)][0] for a, b in zip(loop, loop[1:])))
planted = cycle(list(found) + [('vm/session', 'labs')])
expect(planted is not None, 'a planted import of labs from vm/session is a cycle (%s)'
       % ' -> '.join(planted or []))
