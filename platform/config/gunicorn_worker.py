"""gunicorn's gthread worker, with kept-alive connections served on by the thread that answered them.

In gthread, every request of a kept-alive connection makes two hops between threads: the request
thread hands the connection back to the main thread's poller when it has answered, and when the
client's next request arrives the main thread hands it to a pool thread again (a future, a queue, a
wake-up of each thread, and an epoll register/unregister; each hop may wait for the GIL). For an
API client that sends its next request as soon as it has the answer (an SDK loop, a prediction
client), that is most of gunicorn's per-request cost.

``KeepAliveThreadWorker`` lets the request thread wait a moment (``SERVE_ON_SECONDS``, 2 ms) for the
same connection's next request and serve it itself, at most ``SERVE_ON_REQUESTS`` times in a row,
and only while no other connection is waiting for a thread; otherwise, or when the client is
quiet, the connection goes back to the poller exactly as in gthread. Everything else (parsing,
limits, timeouts, graceful stops, max_requests) is gthread's own code.

Its responses (``CoalescingResponse``) send the status line and headers together with the body's
first piece in one write when they can (a fixed-length or unframed body, not HEAD/204/304, not
chunked): gunicorn writes the headers first and then the body, two system calls and two wake-ups
of the client for every small API answer. The bytes on the wire are the same.

config/gunicorn.py selects it (``worker_class``); `manage.py up`, the Dockerfile and
docker-compose.yml name it on their command lines.
"""

from __future__ import annotations

from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.workers import gthread

SERVE_ON_SECONDS = 0.002
SERVE_ON_REQUESTS = 100


class CoalescingResponse(wsgi.Response):
    """gunicorn's HTTP/1 response, with the headers sent in the same write as the first body bytes."""

    headers_sent: bool
    sent: int

    def write(self, arg):
        if (
            self.headers_sent
            or not isinstance(arg, bytes)
            or not arg
            or self.chunked
            or self._omits_body
            or (self.response_length is not None and len(arg) > self.response_length)
        ):
            return super().write(arg)
        tosend = self.default_headers()  # as wsgi.Response.send_headers builds them
        tosend.extend([f"{k}: {v}\r\n" for k, v in self.headers])
        head = util.to_bytestring("{}\r\n".format("".join(tosend)), "latin-1")
        self.headers_sent = True
        self.sent += len(arg)
        util.write(self.sock, head + arg)


class KeepAliveThreadWorker(gthread.ThreadWorker):
    def init_process(self):
        # gthread's handle_request builds its HTTP/1 responses with wsgi.create(), which takes the
        # module's Response (HTTP/2 passes its own class): this worker process answers with ours.
        wsgi.Response = CoalescingResponse
        super().init_process()

    def handle(self, conn):
        result = super().handle(conn)
        served = 1
        while (
            result is True
            and not conn.is_http2
            and self.alive
            and served < SERVE_ON_REQUESTS
            and not self._others_waiting()
        ):
            buffered = conn.parser.unreader.buf.getvalue() if conn.parser is not None else b""
            if not buffered:
                conn.data_ready = False
                if not conn.wait_for_data(SERVE_ON_SECONDS):
                    break  # a quiet client: back to the poller, as gthread does
            conn.data_ready = True
            result = super().handle(conn)
            served += 1
        return result

    def _others_waiting(self) -> bool:
        """Whether requests of other connections wait for a pool thread (then this one goes back)."""
        queue = getattr(self.tpool, "_work_queue", None)
        return queue is not None and not queue.empty()
