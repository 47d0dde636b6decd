"""The host names a console answers to (its defence against DNS rebinding).

A page of another site can have its own name resolve to the console's address; the browser then
talks to the console but says the other site's name in ``Host`` (and ``Origin``). So a console
answers only to its own names:

- the address the connection came in on, as an IP literal (an address cannot be rebound), on
  the port it came in on — on a console served on 0.0.0.0 or ``::`` that is whichever of the
  machine's addresses the browser used;
- ``localhost`` and the loopback addresses when the connection came in on a loopback address;
- the names listed in ``[web] hostnames`` (a console reached by a DNS name, or through a TLS
  proxy): ``name`` with the served port or no port (the browser's default port: a proxy on
  443), ``name:port`` with exactly that port.

The machine's own host name is not taken by itself: a name is only trusted when it is listed.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass

NAME_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?)*$")
"""A DNS name (letters, digits and hyphens between dots), lower case."""
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def split_host(value: str) -> tuple[str, int | None] | None:
    """``name``, ``name:port``, ``1.2.3.4:port`` or ``[v6]:port`` as (name in lower case, port or
    None); None when it is no host."""
    v = value.strip().lower()
    if v.startswith("["):
        name, bracket, rest = v[1:].partition("]")
        if not bracket or address(name) is None or ":" not in name:
            return None
        if rest and not rest.startswith(":"):
            return None
        name = str(ipaddress.ip_address(name))  # one spelling of the address
        port_text = rest[1:] if rest else None
    else:
        name, colon, port_text_or_empty = v.partition(":")
        port_text = port_text_or_empty if colon else None
        name = name.removesuffix(".")  # a fully qualified name's root dot
        if not NAME_RE.fullmatch(name):
            return None
    if port_text is None:
        return name, None
    if not (0 < len(port_text) <= 5 and port_text.isascii() and port_text.isdigit()
            and 0 < int(port_text) < 65536):
        return None
    return name, int(port_text)


def address(name: str) -> Address | None:
    """The IP address ``name`` spells, if it is one (an IPv4-mapped IPv6 address as IPv4)."""
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def default_port(scheme: str) -> int:
    return 443 if scheme in ("https", "wss") else 80


@dataclass(frozen=True)
class Hosts:
    """The names a console answers to: its own address and port, loopback names on loopback,
    and the listed ones."""

    listed: frozenset[tuple[str, int | None]] = frozenset()

    @classmethod
    def of(cls, hostnames: Iterable[str]) -> Hosts:
        listed = set()
        for entry in hostnames:
            parsed = split_host(entry)
            if parsed is None:
                raise ValueError(f"{entry!r} is not a host name (name or name:port)")
            listed.add(parsed)
        return cls(frozenset(listed))

    def allows(self, host: str, scheme: str, here: tuple[str, int] | None) -> bool:
        """Whether ``host`` (a ``Host`` header, or an origin's host and port) names this console,
        reached with ``scheme`` on the local address and port ``here`` (None: unknown, only the
        listed names with their port)."""
        parsed = split_host(host)
        if parsed is None:
            return False
        name, port = parsed
        if here is not None:
            local, local_port = address(here[0]), here[1]
            served = port == local_port or (port is None and local_port == default_port(scheme))
            ip = address(name)
            if served and local is not None and ip is not None and ip == local:
                return True
            if served and local is not None and local.is_loopback and (
                    name == "localhost" or (ip is not None and ip.is_loopback)):
                return True
        for listed_name, listed_port in self.listed:
            if name != listed_name:
                continue
            if listed_port is None:
                if port is None or (here is not None and port == here[1]):
                    return True
            elif port == listed_port or (port is None and listed_port == default_port(scheme)):
                return True
        return False

    def allows_origin(self, origin: str, here: tuple[str, int] | None) -> bool:
        """Whether ``origin`` (an ``Origin`` header: ``scheme://host[:port]``) is one of this
        console's own pages; ``null`` (a sandboxed frame, a file, a form posted with no
        referrer) is not."""
        scheme, sep, host = origin.strip().partition("://")
        if not sep or scheme.lower() not in ("http", "https") or "/" in host or "@" in host:
            return False
        return self.allows(host, scheme.lower(), here)
