"""An MQTT broker inside the process, for ``make demo`` only (amqtt; MQTT 3.1.1).

A demo should run on a fresh laptop with nothing but Python; production and the tests use
mosquitto, which also enforces the ACLs that keep ``secure/#`` private.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import Any


class EmbeddedBroker:
    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        self.host, self.port = host, port
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="broker",
                                        daemon=True)
        self._broker: Any = None

    def start(self) -> None:
        from amqtt.broker import Broker

        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin":
                        {"allow_anonymous": True}},
        }
        self._thread.start()

        async def boot() -> None:
            self._broker = Broker(config)
            await self._broker.start()

        asyncio.run_coroutine_threadsafe(boot(), self._loop).result(timeout=15)

    def stop(self) -> None:
        if self._broker is not None:
            fut = asyncio.run_coroutine_threadsafe(self._broker.shutdown(), self._loop)
            with contextlib.suppress(Exception):  # the demo is exiting anyway
                fut.result(timeout=5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
