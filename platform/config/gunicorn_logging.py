"""gunicorn's logger with a cheaper access-log line (config/gunicorn.py sets ``logger_class``).

gunicorn builds the atoms of every access-log line from every request header, response header and
WSGI environ variable (about 60 entries, each escaped), whatever the format uses: about a tenth of a
millisecond per request, an eighth of a hosted prediction's round trip (docs/benchmarks.md). When
the format names no header or environ atom (``%({name}i)s``, ``{name}o``, ``{name}e``; the default
format names none), ``SampanLogger`` builds only the plain atoms, the same values, so the lines are
the same; with such a format it is gunicorn's own logger.
"""

from __future__ import annotations

import os

from gunicorn import glogging


class SampanLogger(glogging.Logger):
    def atoms(self, resp, req, environ, request_time):
        if "%({" in self.cfg.access_log_format:
            return super().atoms(resp, req, environ, request_time)
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        sent = getattr(resp, "sent", None)
        method = environ.get("REQUEST_METHOD")
        protocol = environ.get("SERVER_PROTOCOL")
        return {
            "h": environ.get("REMOTE_ADDR", "-"),
            "l": "-",
            "u": self._get_user(environ) or "-",
            "t": self.now(),
            "r": f"{environ['REQUEST_METHOD']} {environ['RAW_URI']} {environ['SERVER_PROTOCOL']}",
            "s": status,
            "m": method,
            "U": environ.get("PATH_INFO"),
            "q": environ.get("QUERY_STRING"),
            "H": protocol,
            "b": "-" if sent is None else str(sent),
            "B": sent,
            "f": environ.get("HTTP_REFERER", "-"),
            "a": environ.get("HTTP_USER_AGENT", "-"),
            "T": request_time.seconds,
            "D": (request_time.seconds * 1000000) + request_time.microseconds,
            "M": (request_time.seconds * 1000) + int(request_time.microseconds / 1000),
            "L": f"{request_time.seconds}.{request_time.microseconds:06d}",
            "p": f"<{os.getpid()}>",
        }
