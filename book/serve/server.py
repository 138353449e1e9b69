"""book/serve/server.py: make serve, the workbook and its labs on one page.

Serves the rendered book (build/book/, rendered first if it is older than
its sources) with a terminal per lab chapter (book/serve/page.js): each
terminal is a shell on this host, in the checkout, that runs `make lab
N=k` and then stays a shell. Debian's terminado gives each websocket a
pty of its own (terminado's UniqueTermManager), on Debian's tornado.

As Jupyter's server does it: a random token, printed in the URL, is
wanted by every page, file and websocket (the URL's ?token= sets a
cookie, so that the page's own figures carry it; a terminal's websocket
wants the token in its own URL, which the page keeps for its tab); a
websocket from another Origin is refused (tornado's same-origin check),
and a request to another name than this server's (DNS rebinding); the
page may not be framed; files come from the rendered book only; the
server listens on loopback unless SERVE_HOST names another address. SERVE_PORT picks the port (default: a free one);
SERVE_GUESTS caps the sessions at once (default: the cores), and one more
is refused with a line that names those running.

Closing a session's terminal or the page ends its shell: SIGHUP to its
process group, as terminado does, then SIGKILL to whatever is left of the
terminal's session a few seconds later. A lab's QEMU dies with the lab's
vm/session process (PR_SET_PDEATHSIG), so no guest outlives its page.

Runs under Debian's /usr/bin/python3 (the Makefile's serve target), the
interpreter Debian's python3-terminado is installed for.
"""
import datetime
import hmac
import os
import secrets
import signal
import socket
import subprocess
import sys
import time

import terminado
import tornado.httpserver
import tornado.ioloop
import tornado.netutil
import tornado.websocket
import tornado.web

from book.serve import xterm
from vm.session import facts

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get('BUILD') or os.path.join(TOP, 'build')
BOOK = os.path.join(BUILD, 'book')
HERE = os.path.dirname(os.path.abspath(__file__))
# Variables of the make that ran make serve, which a make typed in a
# terminal must not inherit (its jobserver's file descriptors, its level).
MAKE_VARS = ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES', 'MAKE_TERMOUT',
             'MAKE_TERMERR')
GRACE = 3                   # seconds from SIGHUP to SIGKILL at a session's end


def say(text):
    print('[serve] ' + text, flush=True)


def book_is_stale():
    """Whether build/book/index.html is missing or older than a file of
    book/ or labs/ (its chapters, its kept runs, the labs' READMEs)."""
    page = os.path.join(BOOK, 'index.html')
    if not os.path.exists(page):
        return True
    built = os.path.getmtime(page)
    for folder in ('book', 'labs'):
        for root, dirs, files in os.walk(os.path.join(TOP, folder)):
            dirs[:] = [d for d in dirs if d not in ('serve', '__pycache__')]
            if any(os.path.getmtime(os.path.join(root, f)) > built for f in files):
                return True
    return False


class Guarded:
    """Every request: a Host this server answers to (a page of another
    name that resolves here, DNS rebinding, gets 403), and the token:
    ?token=, an "Authorization: token T" header, or the cookie ?token=
    sets for the page's own files. The page may not be framed by another."""

    def given_token(self, cookie=True):
        app = self.application.settings
        header = self.request.headers.get('Authorization', '')
        return (self.get_query_argument('token', None)
                or (header[len('token '):] if header.startswith('token ') else None)
                or (self.get_cookie(app['cookie']) if cookie else None))

    def prepare(self):
        app = self.application.settings
        if app['hosts'] is not None and self.request.host.lower() not in app['hosts']:
            raise tornado.web.HTTPError(403, 'not a name of this server: %s' % self.request.host)
        given = self.given_token()
        if not given or not hmac.compare_digest(given.encode(), app['token'].encode()):
            raise tornado.web.HTTPError(403, 'a token is wanted: the URL make serve printed')
        if self.get_query_argument('token', None):
            self.set_cookie(app['cookie'], app['token'], httponly=True, samesite='Strict')
        self.set_header('X-Frame-Options', 'DENY')
        self.set_header('Content-Security-Policy', "frame-ancestors 'none'")


class BookPage(Guarded, tornado.web.RequestHandler):
    """The book's page with the session dock's script and style added."""

    def get(self):
        with open(os.path.join(BOOK, 'index.html')) as f:
            page = f.read()
        tags = ('<link rel="stylesheet" href="/serve/xterm.css">\n'
                '<link rel="stylesheet" href="/serve/page.css">\n'
                '<script src="/serve/xterm.js"></script>\n'
                '<script src="/serve/page.js"></script>\n')
        self.set_header('Cache-Control', 'no-store')
        self.write(page.replace('</body>', tags + '</body>', 1))


class Asset(Guarded, tornado.web.RequestHandler):
    """The dock's script and style, and xterm.js joined from Debian's."""

    def get(self, name):
        kinds = {'js': 'application/javascript', 'css': 'text/css'}
        self.set_header('Content-Type', kinds[name.rsplit('.', 1)[1]])
        if name == 'xterm.js':
            self.write(self.application.settings['xterm'])
        elif name == 'xterm.css':
            self.write(xterm.css())
        else:
            with open(os.path.join(HERE, name)) as f:
                self.write(f.read())


class BookFile(Guarded, tornado.web.StaticFileHandler):
    """A file of the rendered book (figures); tornado refuses a path that
    leaves its root (403), and so is a link that leads out of it."""

    def validate_absolute_path(self, root, absolute_path):
        real = os.path.realpath(absolute_path)
        if not real.startswith(os.path.realpath(root) + os.sep):
            raise tornado.web.HTTPError(403, 'not a file of the rendered book')
        return super().validate_absolute_path(root, absolute_path)


class Sessions(terminado.UniqueTermManager):
    """A terminal per websocket, each a lab's session."""

    def __init__(self, limit):
        super().__init__(shell_command=['sh'])
        self.limit = limit
        self.labs = {}          # a terminal's pid -> (lab, when it opened)

    def running(self):
        return ', '.join('lab %s (its session opened at %s)' % self.labs[pid]
                         for pid in sorted(self.labs))

    def refusal(self):
        """The line a session over the limit gets, or None."""
        if len(self.labs) < self.limit:
            return None
        return ('make serve: %d lab session%s run%s already, as many as this machine '
                'has cores for (SERVE_GUESTS=%d): %s. Close one of their terminals '
                '(its tab\'s x) and open this one again.'
                % (len(self.labs), 's' if len(self.labs) > 1 else '',
                   '' if len(self.labs) > 1 else 's', self.limit, self.running()))

    def open_lab(self, lab):
        env = self.make_term_env()
        for name in MAKE_VARS:
            env.pop(name, None)
        argv = ['sh', '-c', 'make lab N="$1"; exec bash -i', 'sh', lab]
        term = terminado.management.PtyWithClients(argv, env, TOP)
        self.labs[term.ptyproc.pid] = (lab, datetime.datetime.now().strftime('%H:%M:%S'))
        self.start_reading(term)
        return term

    def on_eof(self, ptywclients):
        self.labs.pop(ptywclients.ptyproc.pid, None)
        super().on_eof(ptywclients)

    def client_disconnected(self, websocket):
        term = websocket.terminal
        if term is None:
            return
        pid = term.ptyproc.pid
        self.labs.pop(pid, None)
        super().client_disconnected(websocket)
        tornado.ioloop.IOLoop.current().call_later(GRACE, end_session, pid)

    def end_all(self):
        for pid in list(self.labs):
            try:
                os.killpg(pid, signal.SIGHUP)
            except ProcessLookupError:
                pass
        time.sleep(1)
        for pid in list(self.labs):
            end_session(pid)


def end_session(sid):
    """SIGKILL every process still in session SID (a terminal's shell is
    its session's leader: what it started and did not move elsewhere)."""
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            if os.getsid(int(entry)) == sid:
                os.kill(int(entry), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class LabSocket(Guarded, terminado.TermSocket):
    """/terminal/N: a new session of lab N, or the line that refuses it.
    The token must be in the request itself (the page adds it): the
    cookie alone, which a browser also sends to any other server on
    this address, is not enough for a shell."""

    def prepare(self):
        super().prepare()
        given = self.given_token(cookie=False)
        if not given or not hmac.compare_digest(
                given.encode(), self.application.settings['token'].encode()):
            raise tornado.web.HTTPError(403, "a shell wants the token in its request")

    def open(self, lab):
        tornado.websocket.WebSocketHandler.open(self, lab)
        if lab not in [str(n) for n in facts.labs()]:
            self.send_json_message(['stdout', 'make serve: there is no lab %s\r\n' % lab])
            self.close()
            return
        refused = self.term_manager.refusal()
        if refused:
            self.send_json_message(['stdout', refused + '\r\n'])
            self.send_json_message(['disconnect', 1])
            self.close()
            return
        self.term_name = 'lab ' + lab
        self.terminal = self.term_manager.open_lab(lab)
        self.terminal.clients.append(self)
        self.send_json_message(['setup', {}])


def listen(app, host, port):
    """Bind HOST:PORT (PORT 0: a free one); the port bound."""
    sockets = tornado.netutil.bind_sockets(port, host, family=socket.AF_INET)
    server = tornado.httpserver.HTTPServer(app)
    server.add_sockets(sockets)
    return sockets[0].getsockname()[1]


def main():
    host = os.environ.get('SERVE_HOST') or '127.0.0.1'
    port = int(os.environ.get('SERVE_PORT') or 0)
    limit = int(os.environ.get('SERVE_GUESTS') or os.cpu_count() or 1)
    if book_is_stale():
        say('rendering the book first (book/build.sh)')
        if subprocess.call([os.path.join(TOP, 'book', 'build.sh')]) != 0:
            sys.exit('make serve: the book did not render (above); make book says the same')
    try:
        bundle = xterm.bundle()
    except xterm.Missing as e:
        sys.exit('make serve: %s' % e)
    token = secrets.token_urlsafe(24)
    sessions = Sessions(limit)
    app = tornado.web.Application([
        (r'/', BookPage),
        (r'/serve/(page\.js|page\.css|xterm\.js|xterm\.css)', Asset),
        (r'/terminal/(\d+)', LabSocket, {'term_manager': sessions}),
        (r'/(.+)', BookFile, {'path': BOOK}),
    ], token=token, xterm=bundle, websocket_ping_interval=20)
    try:
        port = listen(app, host, port)
    except OSError as e:
        sys.exit('make serve: cannot listen on %s:%d (%s): another SERVE_PORT?' % (host, port, e))
    app.settings['cookie'] = 'ks_serve_%d' % port
    # The names a browser may call this server by; listening on every
    # address (SERVE_HOST=0.0.0.0), it is any: the token alone guards it.
    app.settings['hosts'] = None if host in ('0.0.0.0', '::') else {
        '%s:%d' % (name, port) for name in ('127.0.0.1', 'localhost', '[::1]', host.lower())}
    shown = '127.0.0.1' if host in ('127.0.0.1', 'localhost') else host
    say('the workbook, each lab with its session: http://%s:%d/?token=%s' % (shown, port, token))
    say("a lab's page, its session opened: http://%s:%d/?token=%s&lab=0" % (shown, port, token))
    say('a terminal there is a shell on this host, as you. At most %d sessions at once; '
        'Ctrl-C ends the server and every session.' % limit)

    def stop(*_):
        sessions.end_all()
        tornado.ioloop.IOLoop.current().add_callback_from_signal(
            tornado.ioloop.IOLoop.current().stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    tornado.ioloop.IOLoop.current().start()


if __name__ == '__main__':
    main()
