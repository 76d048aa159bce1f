"""A WirePlan carried out on a real socket: status line and headers after the plan's
head delay, the chunks at their delays, then the ending the plan says (FIN, RST, a stall,
a connection fault).

The headers never announce a cut (no ``connection: close`` unless the client asked for
it): undici, Node's fetch, takes EOF as the normal end of a ``connection: close`` body,
and every cut would pass for a clean end.
"""

from __future__ import annotations

import email.utils
import select
import socket
import threading
import time
from http import HTTPStatus

from harness.wire.chunks import whole_frames_at_once
from harness.wire.http11 import finish, reset
from harness.wire.plan import WirePlan

SILENCE_SECONDS = 600.0  # connect_timeout / read_timeout hold the connection this long, times time_scale
GARBAGE = b"\x16\x03\x01\x02\x00garbage, not HTTP\r\n\r\n"
_HOP_HEADERS = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive", "date"})
_PHRASES = {529: "Overloaded"}


class PlanSender:
    """Sends plans on sockets; waits are real time times ``time_scale`` and end early
    when ``stopping`` is set or the client goes away."""

    def __init__(self, time_scale: float, stopping: threading.Event) -> None:
        self.time_scale = max(0.0, float(time_scale))
        self.stopping = stopping

    def send(self, sock: socket.socket, plan: WirePlan, *, keep_alive: bool, chunked: bool) -> bool:
        """Send ``plan``; whether the connection stays open. ``keep_alive`` is what the
        client asked for, never the plan's ending."""
        if plan.head_delay and not self.wait(sock, plan.head_delay):
            return False
        headers = {k: v for k, v in plan.headers.items() if k.lower() not in _HOP_HEADERS}
        headers["date"] = email.utils.formatdate(usegmt=True)
        if chunked:
            headers["transfer-encoding"] = "chunked"
        elif plan.ending == "complete":
            headers["content-length"] = str(len(plan.body))
        headers["connection"] = "keep-alive" if keep_alive else "close"
        phrase = _PHRASES.get(plan.status) or _phrase(plan.status)
        head = f"HTTP/1.1 {plan.status} {phrase}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        head = head.encode("latin-1") + b"\r\n"
        if not any(delay > 0 for delay in plan.delays) and (len(plan.chunks) < 2 or whole_frames_at_once(plan.chunks, plan.delays)):
            # nothing to wait for and no split inside a frame: one write with the head, not one per frame
            body = b"".join(plan.chunks)
            if chunked and body:
                body = b"%x\r\n%s\r\n" % (len(body), body)
            sock.sendall(head + body + (b"0\r\n\r\n" if plan.ending == "complete" and chunked else b""))
        else:
            sock.sendall(head)
            for chunk, delay in zip(plan.chunks, plan.delays):
                if not self.wait(sock, delay):
                    return False
                if chunk:
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            if plan.ending == "complete" and chunked:
                sock.sendall(b"0\r\n\r\n")
        if plan.ending == "rst":
            reset(sock)
            return False
        if plan.ending == "stall":
            self.wait(sock, plan.stall_seconds)
        if plan.ending != "complete":  # fin, interrupt, the end of a stall
            finish(sock)
            return False
        if not keep_alive:
            finish(sock)
        return keep_alive

    def connection_fault(self, sock: socket.socket, fault: str) -> None:
        """A connection that fails before any response: reset, silence, garbage or nothing."""
        if fault == "refused":
            reset(sock)
            return
        if fault in ("connect_timeout", "read_timeout"):
            self.wait(sock, SILENCE_SECONDS)
        elif fault == "garbage":
            sock.sendall(GARBAGE)
        finish(sock)  # empty, garbage, the end of a silence

    def wait(self, sock: socket.socket, seconds: float) -> bool:
        """Wait ``seconds`` × time_scale; False as soon as the client goes away or the server stops."""
        deadline = time.monotonic() + seconds * self.time_scale
        watching = True
        while (left := deadline - time.monotonic()) > 0 and not self.stopping.is_set():
            if not watching:
                self.stopping.wait(min(left, 0.05))
                continue
            readable, _, _ = select.select([sock], [], [], min(left, 0.05))
            if readable:
                try:
                    if not sock.recv(1, socket.MSG_PEEK):
                        return False
                except OSError:
                    return False
                watching = False  # the client sent more (a pipelined request): just wait
        return not self.stopping.is_set()


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"
