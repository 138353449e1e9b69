// book/serve/page.js: the workbook page of make serve (book/serve/server.py).
// Each lab chapter gets a session: a terminal, docked on the right, whose
// shell runs `make lab N=k` and then stays a shell in the checkout. Every
// gdb command a chapter shows in a code block (a transcript's "(gdb) "
// prompt, a banner's "Try:" list), every make line, and each ks- command
// its text names has a button (▸) that types it into that lab's terminal;
// the learner presses Enter. A button inside a fold is hidden with the
// fold: nothing here opens one.
(function () {
    'use strict';
    var LAB_HEADING = /^(?:[\d.]+\s+)?Lab (\d+):/;
    var sessions = {};           // lab -> {pane, term, ws, tab}
    // The token of the URL make serve printed, kept for this tab (a
    // shell's websocket wants it: the cookie alone is not enough) and
    // taken out of the address bar.
    var fromUrl = /[?&]token=([^&]+)/.exec(location.search);
    if (fromUrl) {
        sessionStorage.setItem('ks-token', decodeURIComponent(fromUrl[1]));
        history.replaceState(null, '', location.pathname +
            location.search.replace(/([?&])token=[^&]+&?/, '$1').replace(/[?&]$/, '') +
            location.hash);
    }
    var token = sessionStorage.getItem('ks-token');
    var dock, tabs, panes;

    function el(tag, cls, text) {
        var e = document.createElement(tag);
        if (cls) e.className = cls;
        if (text) e.textContent = text;
        return e;
    }

    // The lab a chapter is about, from its heading ("6. Lab 0: ...").
    function chapters() {
        var out = {};
        document.querySelectorAll('div.sect1 > h2').forEach(function (h) {
            var m = LAB_HEADING.exec(h.textContent);
            if (m) out[m[1]] = h.parentNode;
        });
        return out;
    }

    function makeDock() {
        dock = el('aside', 'ks-dock');
        tabs = el('div', 'ks-tabs');
        panes = el('div', 'ks-panes');
        dock.appendChild(tabs);
        dock.appendChild(panes);
        document.body.appendChild(dock);
        window.addEventListener('resize', function () {
            Object.keys(sessions).forEach(function (n) { fit(sessions[n]); });
        });
    }

    function show(n) {
        document.body.classList.add('ks-docked');
        Object.keys(sessions).forEach(function (k) {
            var s = sessions[k], on = k === String(n);
            s.pane.style.display = on ? '' : 'none';
            s.tab.classList.toggle('ks-active', on);
            if (on) fit(s);
        });
    }

    function fit(s) {
        if (s.pane.style.display === 'none') return;
        window.TerminalFit(s.term);
        if (s.ws.readyState === WebSocket.OPEN)
            s.ws.send(JSON.stringify(['set_size', s.term.rows, s.term.cols]));
    }

    function close(n) {
        var s = sessions[n];
        if (!s) return;
        s.ws.close();            // the server ends the shell, its gdb and guest
        s.pane.remove();
        s.tab.remove();
        delete sessions[n];
        var left = Object.keys(sessions);
        if (left.length) show(left[0]);
        else document.body.classList.remove('ks-docked');
    }

    // Lab n's session: the one open, or a new terminal and its websocket.
    function open(n) {
        n = String(n);
        if (sessions[n]) { show(n); return sessions[n]; }
        var s = {pending: []};
        s.tab = el('span', 'ks-tab');
        var name = el('button', 'ks-tab-name', 'lab ' + n);
        name.onclick = function () { show(n); };
        var x = el('button', 'ks-tab-close', '×');
        x.title = 'end this session: its gdb and its guest';
        x.onclick = function () { close(n); };
        s.tab.appendChild(name);
        s.tab.appendChild(x);
        tabs.appendChild(s.tab);
        s.pane = el('div', 'ks-pane');
        s.pane.dataset.lab = n;
        panes.appendChild(s.pane);
        // Shown before xterm.js opens in it: it measures its characters then.
        document.body.classList.add('ks-docked');
        Object.keys(sessions).forEach(function (k) { sessions[k].pane.style.display = 'none'; });
        s.term = new window.Terminal({scrollback: 5000,
                                      fontSize: 13, cursorBlink: true});
        s.term.open(s.pane);
        var scheme = location.protocol === 'https:' ? 'wss://' : 'ws://';
        s.ws = new WebSocket(scheme + location.host + '/terminal/' + n +
                             '?token=' + encodeURIComponent(token || ''));
        s.ws.onopen = function () {
            s.opened = true;
            fit(s);
            s.pending.forEach(function (d) { s.ws.send(d); });
            s.pending = [];
        };
        s.ws.onmessage = function (ev) {
            var m = JSON.parse(ev.data);
            if (m[0] === 'stdout') s.term.write(m[1]);
            else if (m[0] === 'disconnect') s.term.write('\r\n[this session has ended]\r\n');
        };
        s.ws.onclose = function () {
            s.term.setOption('cursorBlink', false);
            if (!s.opened)
                s.term.write('make serve refused this session: open the URL make serve ' +
                             'printed, with its token, in this tab\r\n');
        };
        s.term.on('data', function (d) { send(s, d); });
        sessions[n] = s;
        show(n);
        return s;
    }

    function send(s, text) {
        var d = JSON.stringify(['stdin', text]);
        if (s.ws.readyState === WebSocket.OPEN) s.ws.send(d);
        else s.pending.push(d);
    }

    // The command a line of a code block shows, or null: after a "(gdb) "
    // prompt; a banner's "Try:" entry; a make line (a comment left out).
    function command(text, inTry) {
        var m = /^\(gdb\) (\S.*?)(?:\s{2,}#.*)?$/.exec(text);
        if (m) return m[1].trim();
        m = /^(?:\$ )?(make [^#]*?)\s*(?:#.*)?$/.exec(text);
        if (m) return m[1];
        if (inTry) {
            m = /^  (\S.*?)(?:\s{2,}.*)?$/.exec(text);
            if (m) return m[1].split(/;\s/)[0].trim();
        }
        return null;
    }

    var scratch = document.createElement('div');
    function textOf(html) {
        scratch.innerHTML = html;
        return scratch.textContent;
    }

    // A ▸ in the margin of each command line of PRE, typing it into LAB's
    // terminal. Rouge's spans never cross a line, so lines are split as HTML.
    function buttons(pre, lab) {
        var code = pre.querySelector('code') || pre;
        var inTry = false, changed = false;
        var lines = code.innerHTML.split('\n').map(function (html) {
            var text = textOf(html);
            if (text === 'Try:') { inTry = true; return html; }
            if (inTry && !/^ /.test(text)) inTry = false;
            var cmd = command(text, inTry);
            if (!cmd) return html;
            var n = lab, m = /\bN=(\d+)/.exec(cmd);
            if (/^make /.test(cmd) && m) n = m[1];
            if (n === null) return html;
            changed = true;
            var b = el('button', 'ks-cmd', '▸');
            b.dataset.cmd = cmd;
            b.dataset.lab = n;
            b.title = 'type it into lab ' + n + "'s terminal (then press Enter there)";
            return '<span class="ks-line">' + b.outerHTML + '</span>' + html;
        });
        if (changed) {
            code.innerHTML = lines.join('\n');
            pre.classList.add('ks-commands');
        }
    }

    // A ▸ after each ks- command the chapter's text names in code
    // (`ks-where`): the same button as a code block's.
    function inlineButtons(chapter, lab) {
        chapter.querySelectorAll('p > code, li code, td code').forEach(function (c) {
            if (c.closest('pre') || !/^ks-[a-z-]+$/.test(c.textContent)) return;
            var b = el('button', 'ks-cmd ks-inline', '▸');
            b.dataset.cmd = c.textContent;
            b.dataset.lab = lab;
            b.title = 'type it into lab ' + lab + "'s terminal (then press Enter there)";
            c.parentNode.insertBefore(b, c.nextSibling);
        });
    }

    function type(n, cmd) {
        var s = open(n);
        send(s, cmd);
        s.term.focus();
    }

    function start() {
        makeDock();
        var labs = chapters();
        Object.keys(labs).forEach(function (n) {
            var bar = el('div', 'ks-open');
            var b = el('button', 'ks-open-button', "open lab " + n + "'s session");
            b.dataset.lab = n;
            b.title = 'a terminal that runs make lab N=' + n + ', then stays a shell';
            b.onclick = function () { open(n); };
            bar.appendChild(b);
            var h = labs[n].querySelector('h2');
            h.parentNode.insertBefore(bar, h.nextSibling);
            inlineButtons(labs[n], n);
        });
        document.querySelectorAll('pre').forEach(function (pre) {
            var lab = null;
            Object.keys(labs).forEach(function (n) { if (labs[n].contains(pre)) lab = n; });
            buttons(pre, lab);
        });
        document.addEventListener('click', function (ev) {
            var b = ev.target.closest && ev.target.closest('button.ks-cmd');
            if (b) type(b.dataset.lab, b.dataset.cmd);
        });
        // ?lab=N: that lab's page: its chapter, its session open, when
        // the URL came with the token (a page that merely links or frames
        // ?lab=N starts nothing).
        var m = /[?&]lab=(\d+)/.exec(location.search);
        if (m && labs[m[1]] && fromUrl) {
            labs[m[1]].scrollIntoView();
            open(m[1]);
        }
    }

    window.ksSessions = sessions;
    start();
})();
