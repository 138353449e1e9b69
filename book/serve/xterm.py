"""book/serve/xterm.py: Debian's xterm.js as one script a browser loads.

Debian 12's node-xterm (3.8.1) ships xterm.js as CommonJS modules, one
file each, which a browser cannot load as they are; its libjs-xterm's
xterm.js is a wrapper that requires them (288 bytes: no bundle). So the
server joins them here: each module becomes a function in one script,
with the require() they call, and the script sets window.Terminal and
window.TerminalFit (the fit addon). Nothing is downloaded.
"""
import json
import os
import re

LIB = '/usr/share/nodejs/xterm/lib'
# The globals the page uses: (module, the name it exports).
ENTRIES = {'Terminal': ('public/Terminal', 'Terminal'),
           'TerminalFit': ('addons/fit/fit', 'fit')}
REQUIRE = re.compile(r'require\("(\.{1,2}/[^"]+)"\)')


class Missing(Exception):
    pass


def _modules(lib):
    """{module name: its source} for every module the entries reach."""
    found, todo = {}, [m for m, _ in ENTRIES.values()]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        path = os.path.join(lib, name + '.js')
        if not os.path.isfile(path):
            raise Missing('%s is missing: install Debian\'s node-xterm '
                          '(sh vm/host/setup.sh)' % path)
        with open(path) as f:
            source = f.read()
        found[name] = source
        for rel in REQUIRE.findall(source):
            todo.append(os.path.normpath(os.path.join(os.path.dirname(name), rel)))
    return found


def bundle(lib=LIB):
    """The one script: the modules, a require() that resolves their
    relative names, and the two globals."""
    out = ['(function () {', 'var defs = {}, cache = {};']
    for name, source in sorted(_modules(lib).items()):
        out.append('defs[%s] = function (exports, require, module) {\n%s\n};'
                   % (json.dumps(name), source))
    out.append('''
function dirname(name) { var i = name.lastIndexOf('/'); return i < 0 ? '' : name.slice(0, i); }
function resolve(from, rel) {
    var parts = (dirname(from) ? dirname(from).split('/') : []);
    rel.split('/').forEach(function (p) {
        if (p === '..') parts.pop(); else if (p !== '.') parts.push(p);
    });
    return parts.join('/');
}
function load(name) {
    if (!(name in cache)) {
        var module = {exports: {}};
        cache[name] = module;
        defs[name](module.exports, function (rel) { return load(resolve(name, rel)); }, module);
    }
    return cache[name].exports;
}''')
    for glob_name, (module, export) in ENTRIES.items():
        out.append('window.%s = load(%s).%s;' % (glob_name, json.dumps(module), export))
    out.append('})();')
    return '\n'.join(out) + '\n'


def css(lib=LIB):
    with open(os.path.join(lib, 'xterm.css')) as f:
        return f.read()
