"""A TCP relay that can be cut and restored: the venue network between two brokers, in a test.

Cutting closes every connection through it and stops listening, as a pulled cable or a
switch reboot does for the bridge; restoring listens again on the same port.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading

from tablesvc.brokers.mosquitto import free_port


class Relay:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.target = (host, target_port)
        self.port = free_port()
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        self._server: socket.socket | None = None
        self.connections = 0

    def start(self) -> Relay:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", self.port))
        server.listen(8)
        self._server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()
        return self

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return  # cut
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
                self.connections += 1
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        try:
            while True:
                readable, _, _ = select.select([a, b], [], [], 1.0)
                for s in readable:
                    data = s.recv(65536)
                    if not data:
                        return
                    peers[s].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.close()

    def cut(self) -> None:
        """Every connection through the relay dies at once, and no new one gets through."""
        if self._server is not None:
            self._server.close()
            self._server = None
        with self._lock:
            conns, self._conns = self._conns, []
        for s in conns:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                s.close()

    def restore(self) -> None:
        self.start()

    def stop(self) -> None:
        self.cut()
