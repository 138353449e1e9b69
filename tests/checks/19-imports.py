# No import cycle between the project's folders. Every Python file the
# checkout tracks (and vm/session/ks, a Python script with no extension)
# is read with ast; each import of a module of the project gives an edge
# from the importing file's folder to the module's. A folder is a
# top-level folder, or vm/'s sub-folder (vm/session and vm/host are
# different jobs); a lab's own files belong to labs. The folders and
# their edges must form no cycle: the host's session code is at the
# bottom, the labs, the gdb commands, the book and the tests above it.
# The check then proves it can fail, on the same edges with one planted
# back (vm/session importing labs, as ks once did for gradelib).
import ast
import os
import subprocess

from checklib import TOP, expect, log

# Where modules of the project are found, as the Makefile's PYTHONPATH
# and gdb's loader (gdb-scripts/load.py) set it.
ROOTS = ('vm/session', 'labs', 'tests', 'book', 'gdb-scripts', 'tests/gdb')


def folder(path):
    parts = path.split('/')
    return '/'.join(parts[:2]) if parts[0] == 'vm' and len(parts) > 2 else parts[0]


def modules():
    """{module name: the folder that holds it}, from ROOTS."""
    found = {}
    for root in ROOTS:
        for name in os.listdir(os.path.join(TOP, root)):
            path = os.path.join(TOP, root, name)
            if name.endswith('.py'):
                found[name[:-3]] = folder(root + '/' + name)
            elif os.path.isfile(os.path.join(path, '__init__.py')):
                found[name] = folder(root + '/' + name)
    return found


def imported(path):
    """The top-level names of the modules PATH imports."""
    with open(os.path.join(TOP, path)) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name.split('.')[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split('.')[0]


def edges():
    """{(from folder, to folder): [an import that makes it]}."""
    known = modules()
    files = subprocess.run(['git', '-C', TOP, 'ls-files', '*.py', 'vm/session/ks'],
                           stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    out = {}
    for path in files:
        for name in imported(path):
            if name in known and known[name] != folder(path):
                out.setdefault((folder(path), known[name]), []).append(
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
