"""vm/host/class-cache.py STORAGE: which of ccache's remote storages answer.

STORAGE is ccache's remote_storage setting (CCACHE_REMOTE_STORAGE):
entries separated by spaces, each a URL with optional |attribute=value
parts. Prints the entries that answer, space-separated; for each that
does not, one warning line on stderr naming it and why. ccache itself
only logs a storage that is down, and tries it again on every compile.

Only whether something accepts a connection is asked (within a second):
a server that accepts but then fails is ccache's to report.
"""
import os
import socket
import sys
from urllib.parse import urlsplit

DEFAULT_PORTS = {'redis': 6379, 'http': 80}


def trouble(entry):
    """Why ENTRY's storage does not answer, or None when it does."""
    url = urlsplit(entry.split('|')[0])
    if url.scheme == 'file':
        return None if os.path.isdir(url.path) else 'no folder %s' % url.path
    if url.scheme == 'redis+unix':
        path = url.path
        family, address = socket.AF_UNIX, path
    elif url.scheme in DEFAULT_PORTS:
        try:
            port = url.port or DEFAULT_PORTS[url.scheme]
        except ValueError:
            return 'not a port number in %s' % url.netloc
        family, address = socket.AF_INET, (url.hostname or 'localhost', port)
    else:
        return None   # a scheme ccache knows and we do not: let it try
    try:
        if family == socket.AF_INET:
            socket.create_connection(address, timeout=1).close()
        else:
            with socket.socket(family) as s:
                s.settimeout(1)
                s.connect(address)
    except OSError as e:
        return e.strerror or str(e) or type(e).__name__
    return None


def main(storage):
    answering = []
    for entry in storage.split():
        why = trouble(entry)
        if why is None:
            answering.append(entry)
        else:
            url = urlsplit(entry.split('|')[0])
            # Without the user and password a redis:// URL may hold.
            host = '%s://%s%s' % (url.scheme, url.netloc.rpartition('@')[2], url.path)
            print('[class-cache] warning: the class cache %s does not answer '
                  '(%s): building without it, from the local cache only'
                  % (host, why), file=sys.stderr)
    print(' '.join(answering))


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else '')
