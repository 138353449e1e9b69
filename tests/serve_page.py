"""tests/serve_page.py: make serve as a learner meets it, for check 93 and
make bench: the server started as `make serve` starts it, and Debian's
chromium, headless, driven through its DevTools protocol (a page opened
with the printed URL, a button pressed with the mouse, Enter pressed on
the keyboard, the terminal's text read from the page, a screenshot).
"""
import base64
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

from tests import wsclient

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URL = re.compile(r'(http://\S+/)\?token=(\S+)$', re.M)


class Server:
    """make serve, in a session of its own; its URL and token parsed from
    what it printed."""

    def __init__(self, env=None, timeout=300):
        self.log = tempfile.NamedTemporaryFile('w+', prefix='serve-', suffix='.log', delete=False)
        self.proc = subprocess.Popen(['make', '-s', 'serve'], cwd=TOP, stdout=self.log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=dict(os.environ, **(env or {})),
                                     start_new_session=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = URL.search(self.output())
            if m:
                self.base, self.token = m.group(1), m.group(2)
                return
            if self.proc.poll() is not None:
                raise RuntimeError('make serve ended (%d): %s' % (self.proc.returncode,
                                                                  self.output()[-600:]))
            time.sleep(0.2)
        self.stop()
        raise RuntimeError('make serve printed no URL in %d s: %s' % (timeout, self.output()[-600:]))

    def output(self):
        with open(self.log.name, errors='replace') as f:
            return f.read()

    def get(self, path, token=None, headers=None):
        """(status, body) of GET PATH, with ?token=TOKEN when given."""
        url = self.base + path.lstrip('/')
        if token is not None:
            url += ('&' if '?' in url else '?') + 'token=' + token
        req = urllib.request.Request(url, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read().decode(errors='replace')
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors='replace')

    def terminal(self, lab, origin=None, token=True):
        """A websocket on lab LAB's terminal, as the page opens one."""
        ws_url = self.base.replace('http://', 'ws://') + 'terminal/%s' % lab
        if token:
            ws_url += '?token=' + self.token
        return wsclient.Socket(ws_url, {'Origin': origin or self.base.rstrip('/')})

    def stop(self):
        """SIGTERM, as Ctrl-C would: the server ends every session."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        os.unlink(self.log.name)


def read_terminal(ws, want, timeout):
    """What the terminal printed until WANT (a regex) matched, or the
    timeout (then what it printed, and None as the match)."""
    text, deadline = '', time.time() + timeout
    ws.sock.settimeout(1)
    while time.time() < deadline:
        try:
            m = ws.recv_json()
        except EOFError:
            break
        except OSError:             # nothing within the second
            continue
        if m[0] == 'stdout':
            text += m[1]
            found = re.search(want, text)
            if found:
                return text, found
    return text, None


def line_is(lab, regex):
    """A page expression: the line of lab LAB's terminal with the cursor
    matches REGEX (JavaScript's syntax)."""
    return ("(function(){var s=window.ksSessions && ksSessions['%s']; if(!s) return false;"
            "var b=s.term._core.buffer; return /%s/.test("
            "b.translateBufferLineToString(b.ybase + b.y, true));})()" % (lab, regex))


PROMPT = r'^\(gdb\)$'          # gdb's prompt: the cursor's line, its trailing blank trimmed


class Browser:
    """Debian's chromium, headless, with its DevTools endpoint on loopback."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix='ks-chromium-')
        args = ['chromium', '--headless=new', '--no-sandbox', '--disable-gpu',
                '--no-first-run', '--remote-debugging-address=127.0.0.1',
                '--remote-debugging-port=0', '--user-data-dir=' + self.profile,
                '--window-size=1600,1000', 'about:blank']
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        port_file = os.path.join(self.profile, 'DevToolsActivePort')
        deadline = time.time() + 60
        while not os.path.exists(port_file) or len(open(port_file).read().split()) < 2:
            if time.time() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError('chromium did not open its DevTools port')
            time.sleep(0.1)
        self.port = int(open(port_file).read().split()[0])

    def page(self, url):
        """A new tab at URL."""
        req = urllib.request.Request('http://127.0.0.1:%d/json/new?%s'
                                     % (self.port, urllib.parse.quote(url, safe='')),
                                     method='PUT')
        with urllib.request.urlopen(req, timeout=30) as r:
            target = json.loads(r.read())
        return Page(self, target)

    def close(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser, target):
        self.browser, self.id = browser, target['id']
        self.ws = wsclient.Socket(target['webSocketDebuggerUrl'])
        self.n = 0

    def call(self, method, **params):
        self.n += 1
        self.ws.send(json.dumps({'id': self.n, 'method': method, 'params': params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get('id') == self.n:
                if 'error' in m:
                    raise RuntimeError('%s: %s' % (method, m['error']))
                return m.get('result', {})

    def js(self, expression):
        r = self.call('Runtime.evaluate', expression=expression, returnByValue=True)
        if 'exceptionDetails' in r:
            raise RuntimeError('%s: %s' % (expression, r['exceptionDetails']))
        return r['result'].get('value')

    def wait(self, expression, timeout, every=0.1):
        """The value of EXPRESSION once true (asked EVERY s), or None
        after TIMEOUT s."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            v = self.js(expression)
            if v:
                return v
            time.sleep(every)
        return None

    def terminal_text(self, lab):
        """The text lab LAB's terminal holds (its buffer, scrollback too),
        a line per row, as xterm.js keeps it for the page."""
        return self.js("(function(){var s=window.ksSessions && ksSessions['%s'];"
                       "if(!s) return ''; var b=s.term._core.buffer, out=[];"
                       "for(var i=0;i<b.lines.length;i++) out.push(b.translateBufferLineToString(i,true));"
                       "return out.join('\\n').replace(/\\s+$/,'');})()" % lab)

    def click(self, selector):
        """Press the first element of SELECTOR that is shown (not in a
        closed fold) with the mouse, scrolled into view first; the time
        of the press."""
        find = ("Array.from(document.querySelectorAll('%s'))"
                ".find(function(x){return x.checkVisibility();})" % selector)
        if not self.js("(function(){var e=%s; if(!e) return false; window.scrollTo(0,"
                       "e.getBoundingClientRect().top + window.scrollY - innerHeight / 2);"
                       "return true;})()" % find):
            raise RuntimeError('no element %s shown on the page' % selector)
        time.sleep(0.2)
        box = self.js("(function(){var r=%s.getBoundingClientRect();"
                      "return [r.x + r.width / 2, r.y + r.height / 2];})()" % find)
        if not box:
            raise RuntimeError('no element %s shown on the page' % selector)
        pressed = time.time()
        for kind in ('mousePressed', 'mouseReleased'):
            self.call('Input.dispatchMouseEvent', type=kind, x=box[0], y=box[1],
                      button='left', clickCount=1)
        return pressed

    def enter(self):
        for kind in ('keyDown', 'keyUp'):
            self.call('Input.dispatchKeyEvent', type=kind, key='Enter', code='Enter',
                      windowsVirtualKeyCode=13, **({'text': '\r'} if kind == 'keyDown' else {}))

    def screenshot(self, path):
        data = self.call('Page.captureScreenshot', format='png')['data']
        with open(path, 'wb') as f:
            f.write(base64.b64decode(data))

    def close(self):
        urllib.request.urlopen('http://127.0.0.1:%d/json/close/%s' % (self.browser.port, self.id),
                               timeout=30).read()
        self.ws.close()
