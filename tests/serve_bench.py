"""tests/serve_bench.py LAB: make bench's figure for make serve: the
seconds from the press of lab LAB's "open lab N's session" button, in
Debian's chromium, to gdb's prompt in the page's terminal (printed
alone; exit 1 if the prompt never came). The server is started and
ended around it, as check 93 does."""
import sys
import time

from tests import serve_page

LAB = sys.argv[1] if len(sys.argv) > 1 else '0'
server = serve_page.Server()
browser = None
try:
    browser = serve_page.Browser()
    page = browser.page('%s?token=%s' % (server.base, server.token))
    page.call('Page.bringToFront')
    page.wait("document.querySelector('.ks-open-button')", 30)
    t0 = page.click('.ks-open-button[data-lab="%s"]' % LAB)
    ready = page.wait(serve_page.line_is(LAB, serve_page.PROMPT), 120, every=0.02)
    took = time.time() - t0
    page.close()
finally:
    if browser:
        browser.close()
    server.stop()
if not ready:
    sys.exit('serve_bench: no gdb prompt in the page within 120 s')
print('%.1f' % took)
