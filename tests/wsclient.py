"""tests/wsclient.py: a websocket client of the standard library, enough for
the checks of make serve: Chromium's DevTools protocol and the server's
terminals (text frames, RFC 6455), with the headers a check chooses (an
Origin of another site, no cookie).
"""
import base64
import json
import os
import socket
import struct
import urllib.parse


class Refused(Exception):
    """The server answered the handshake with another status than 101."""

    def __init__(self, status):
        super().__init__('websocket refused: %s' % status)
        self.status = status


class Socket:
    def __init__(self, url, headers=None, timeout=30):
        u = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((u.hostname, u.port or 80), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        path = u.path + ('?' + u.query if u.query else '')
        lines = ['GET %s HTTP/1.1' % (path or '/'), 'Host: %s' % u.netloc,
                 'Upgrade: websocket', 'Connection: Upgrade',
                 'Sec-WebSocket-Key: ' + key, 'Sec-WebSocket-Version: 13']
        lines += ['%s: %s' % kv for kv in (headers or {}).items()]
        self.sock.sendall(('\r\n'.join(lines) + '\r\n\r\n').encode())
        head = b''
        while b'\r\n\r\n' not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                break
            head += chunk
        status = head.split(b'\r\n', 1)[0].decode(errors='replace')
        if ' 101 ' not in status + ' ':
            self.sock.close()
            raise Refused(status)

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            head = struct.pack('!BB', 0x81, 0x80 | n)
        elif n < 65536:
            head = struct.pack('!BBH', 0x81, 0x80 | 126, n)
        else:
            head = struct.pack('!BBQ', 0x81, 0x80 | 127, n)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _exact(self, n):
        out = b''
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise EOFError('the websocket closed')
            out += chunk
        return out

    def recv(self):
        """The next text message (fragments joined); EOFError at a close."""
        parts = []
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7f
            if n == 126:
                n = struct.unpack('!H', self._exact(2))[0]
            elif n == 127:
                n = struct.unpack('!Q', self._exact(8))[0]
            data = self._exact(n)
            op = b0 & 0x0f
            if op == 8:
                raise EOFError('the websocket closed')
            if op in (9, 10):       # a ping (its pong is not needed here) or pong
                continue
            parts.append(data)
            if b0 & 0x80:
                return b''.join(parts).decode(errors='replace')

    def recv_json(self):
        return json.loads(self.recv())

    def close(self):
        try:
            self.sock.sendall(struct.pack('!BB', 0x88, 0x80) + os.urandom(4))
        except OSError:
            pass
        self.sock.close()
