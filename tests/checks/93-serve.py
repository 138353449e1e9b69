# make serve (book/serve/): the workbook and a live session on one page,
# as a learner meets it in Debian's chromium, headless, driven through
# its DevTools protocol (tests/serve_page.py): lab 0's page opened with
# the printed URL reaches "(gdb)" in its terminal; the ks-where button
# pressed with the mouse and Enter on the keyboard give ks-where's answer
# in the terminal; no fold is opened by the page; closing the page ends
# its gdb and guest. Refused, each by its own request: no token, a wrong
# token (403), a websocket from another Origin, a path that climbs out of
# the book, a session over the limit (SERVE_GUESTS=2, after a second
# session of lab 0 that got a guest of its own: the line names the
# running ones). Closing a terminal's tab ends its guest too. Lab 0's
# page with its session is pictured for book/runs/screens/ (the README
# shows it), and so is each lab whose lab.toml says screenshot = true.
import http.client
import os
import re
import time

from book import kept
from tests import serve_page, wsclient
from tests.checklib import BUILD, expect, facts, log, not_ok

RESULTS = os.path.join(BUILD, 'results')
os.makedirs(RESULTS, exist_ok=True)


def qemus():
    """The live (not zombie) QEMU processes of this build folder's runs,
    by pid (another checkout's, or a chroot's, are not this server's)."""
    out = set()
    mark = os.path.join(BUILD, 'run', '').encode()
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/stat' % pid) as f:
                stat = f.read()
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                args = f.read()
        except OSError:
            continue
        name, state = stat[stat.index('(') + 1:stat.rindex(')')], stat[stat.rindex(')') + 2]
        if name.startswith('qemu-system') and state != 'Z' and mark in args:
            out.add(int(pid))
    return out


def gone_within(pids, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not pids & qemus():
            return True
        time.sleep(0.2)
    return False


def raw_get(server, path):
    """(status, body) of PATH sent as it is (no client normalises it)."""
    host, port = server.base[len('http://'):].rstrip('/').split(':')
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    c.request('GET', path)
    r = c.getresponse()
    return r.status, r.read().decode(errors='replace')


def session_page(browser, server, lab, timeout=120):
    """Lab LAB's page, opened with the printed URL; the page once its
    terminal shows gdb's prompt, and the seconds that took (None: never)."""
    t0 = time.time()
    page = browser.page('%s?token=%s&lab=%s' % (server.base, server.token, lab))
    page.call('Page.bringToFront')
    ready = page.wait(serve_page.line_is(lab, serve_page.PROMPT), timeout)
    return page, (time.time() - t0 if ready else None)


before = qemus()
try:
    server = serve_page.Server({'SERVE_GUESTS': '2'})
except RuntimeError as e:
    not_ok('make serve starts and prints its URL with a token (got: %s)' % e)
    raise SystemExit(0)
browser = None
try:
    expect(server.base.startswith('http://127.0.0.1:') and len(server.token) >= 24,
           'make serve listens on loopback and prints a URL with a random token',
           server.base)
    status, body = server.get('/', token=server.token)
    expect(status == 200 and '/serve/page.js' in body and 'Lab 0:' in body,
           "with the token, the book's page, with the session dock's script", status)
    status, _ = server.get('/')
    expect(status == 403, 'without the token: 403', status)
    status, _ = server.get('/', token=server.token[:-2] + 'xx')
    expect(status == 403, 'with a wrong token: 403', status)
    status, _ = server.get('/serve/xterm.js')
    expect(status == 403, "xterm.js, a file of the page, without the token: 403", status)
    figure = sorted(os.listdir(os.path.join(BUILD, 'book', 'figures')))[0]
    status, _ = server.get('/figures/' + figure, token=server.token)
    expect(status == 200, 'a figure of the rendered book, with the token: 200', figure)
    climbs = ['/../Makefile', '/%2e%2e/Makefile', '/figures/../../../Makefile',
              '/figures/..%2f..%2f..%2fMakefile', '/..%2f..%2fvm/stages.toml']
    leaked = []
    for path in climbs:
        s, body = raw_get(server, path + '?token=' + server.token)
        if s == 200 or 'kstack-workbook' in body or '[machine' in body:
            leaked.append('%s: %d' % (path, s))
    expect(not leaked, 'a path that climbs out of the rendered book is refused (%s)'
           % ', '.join(climbs), leaked)
    try:
        server.terminal(0, origin='http://evil.example').close()
        refused = None
    except wsclient.Refused as e:
        refused = e.status
    expect(refused and ' 403 ' in refused + ' ', 'a websocket from another Origin is refused '
           '(403), so no other site opens a shell', refused)
    try:
        server.terminal(0, token=False).close()
        refused = None
    except wsclient.Refused as e:
        refused = e.status
    expect(refused and ' 403 ' in refused + ' ', 'a websocket without the token: 403', refused)
    # The cookie the page's files carry is sent by a browser to any server
    # on this address: alone, it opens no shell.
    try:
        wsclient.Socket(server.base.replace('http://', 'ws://') + 'terminal/0',
                        {'Origin': server.base.rstrip('/'),
                         'Cookie': 'ks_serve_%s=%s' % (server.base.rstrip('/').rsplit(':', 1)[1],
                                                      server.token)}).close()
        refused = None
    except wsclient.Refused as e:
        refused = e.status
    expect(refused and ' 403 ' in refused + ' ', "a websocket with the page's cookie but not the "
           'token in its URL: 403', refused)
    status, _ = server.get('/', token=server.token,
                           headers={'Host': 'evil.example:' + server.base.rsplit(':', 1)[1]})
    expect(status == 403, 'a request to another name that resolves here (DNS rebinding), token '
           'and all: 403', status)
    req = http.client.HTTPConnection(*server.base[len('http://'):].rstrip('/').split(':'))
    req.request('GET', '/?token=' + server.token)
    framing = req.getresponse().getheader('X-Frame-Options')
    expect(framing == 'DENY', 'the page may not be framed by another (X-Frame-Options)', framing)

    browser = serve_page.Browser()
    page, took = session_page(browser, server, 0)
    log('lab 0: the page open to "(gdb)" in its terminal: %s s' % took)
    if not expect(took is not None, "lab 0's page (?lab=0) opens its session: gdb's prompt "
                  'in its terminal', (page.terminal_text(0) or '')[-600:]):
        raise SystemExit(0)
    mine = qemus() - before
    expect(page.js("document.querySelectorAll('details[open]').length") == 0,
           'no fold is open: the page shows no answer before the learner opens it')
    hidden = page.js("Array.from(document.querySelectorAll('details button.ks-cmd'))"
                     ".filter(function(b){return b.checkVisibility();}).length")
    expect(hidden == 0, "the buttons inside folds stay hidden with them", hidden)
    page.click('button.ks-cmd[data-cmd="ks-where"][data-lab="0"]')
    typed = page.wait(serve_page.line_is(0, r'^\(gdb\) ks-where$'), 10)
    expect(typed, "the ks-where button types ks-where at gdb's prompt, and only types it",
           page.terminal_text(0)[-200:])
    page.enter()
    page.wait(serve_page.line_is(0, serve_page.PROMPT), 30)
    text = page.terminal_text(0)
    answer = re.search(r'^\(gdb\) ks-where\n(CPU \d: \$sp 0x[0-9a-f]+ is on .*)$', text, re.M)
    expect(answer, "Enter: ks-where's answer in the page's terminal (which stack $sp is on)",
           text[-400:])
    if answer:
        log('ks-where in the page: ' + answer.group(1))
    page.screenshot(os.path.join(RESULTS, 'serve-lab0.png'))

    # A second session of lab 0 gets a guest of its own; one more than
    # SERVE_GUESTS=2 allows is refused.
    second = server.terminal(0)
    said, found = serve_page.read_terminal(second, r'\(gdb\) ', 120)
    both = qemus() - before
    expect(found and len(both) == 2 and mine < both, 'a second session of lab 0 gets a guest '
           'of its own (two QEMUs)', (sorted(both), said[-300:]))
    extra = server.terminal(1)
    said, _ = serve_page.read_terminal(extra, r'open this one again', 10)
    extra.close()
    expect(re.search(r'2 lab sessions run already.*lab 0 \(its session opened at .*'
                     r'lab 0 \(its session opened at', said),
           'a session over the limit is refused with a line naming the running ones', said)
    second.close()
    expect(gone_within(both - mine, 15), "closing the second session's websocket ends its guest",
           both - mine)

    page.close()
    expect(mine and gone_within(mine, 15), "closing lab 0's page ends its guest: no QEMU left "
           'within 15 s', mine)

    # The other labs pictured for the README (lab.toml's screenshot): each
    # page opened, its first ks- command's button pressed, then closed.
    for n in [n for n in facts.labs() if facts.lab(n).get('screenshot') and n != 0]:
        page, took = session_page(browser, server, n)
        log('lab %d: the page open to "(gdb)" in its terminal: %s s' % (n, took))
        if expect(took is not None, "lab %d's page opens its session" % n,
                  (page.terminal_text(n) or '')[-600:]):
            page.click('button.ks-cmd[data-lab="%d"][data-cmd^="ks-"]' % n)
            page.enter()
            page.wait(serve_page.line_is(n, serve_page.PROMPT), 30)
            page.screenshot(os.path.join(RESULTS, 'serve-lab%d.png' % n))
        mine = qemus() - before
        page.click('.ks-tab-close')
        expect(gone_within(mine, 15), "closing lab %d's terminal (its tab's x) ends its guest"
               % n, mine)
        page.close()
finally:
    if browser:
        browser.close()
    server.stop()
expect(not (qemus() - before), 'make serve ended (SIGTERM): no QEMU of it is left')

# The pictures are this run's, kept in book/runs/ (the book's check, 90,
# which compares the rest, runs before this one and leaves them here).
for name, built, run in kept.pieces():
    if run == kept.RUNS['serve']:
        expect(os.path.exists(built) and kept.picture(built),
               'book/runs/%s: this run made a picture (pictures are not compared)' % name, built)
        expect(os.path.exists(os.path.join(kept.KEPT, name)),
               'book/runs/%s is kept; `%s` keeps this run\'s' % (name, kept.PROMOTE))
