"""Which ``Host`` and ``Origin`` values name a console (``tablesvc.web.hosts``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablesvc.config.table import ConfigError
from tablesvc.floor.config import load_floor_config
from tablesvc.web.hosts import Hosts, split_host

LAN = ("192.168.1.10", 8080)
LOOPBACK = ("127.0.0.1", 8080)
LISTED = Hosts.of(["floor.venue.lan", "Console.Venue.LAN:8443", "[fe80::1]"])


@pytest.mark.parametrize(("value", "parsed"), [
    ("floor.venue.lan", ("floor.venue.lan", None)),
    ("Floor.Venue.LAN.:8080", ("floor.venue.lan", 8080)),
    ("127.0.0.1:80", ("127.0.0.1", 80)),
    ("[::1]:8080", ("::1", 8080)),
    ("[0:0::1]", ("::1", None)),
    ("", None), ("::1", None), ("[1.2.3.4]", None), ("a b", None), ("host:", None),
    ("host:0", None), ("host:65536", None), ("host:8o", None), ("host:\N{SUPERSCRIPT TWO}", None),
    ("evil.example:80@floor", None), ("*.venue.lan", None), ("-x.lan", None),
])
def test_a_host_is_a_name_or_address_with_an_optional_port(
        value: str, parsed: tuple[str, int | None] | None) -> None:
    assert split_host(value) == parsed


@pytest.mark.parametrize(("host", "here", "allowed"), [
    # the address the connection came in on, on its port
    ("192.168.1.10:8080", LAN, True),
    ("192.168.1.10:8081", LAN, False),
    ("192.168.1.10", LAN, False),  # port 80 is not the one served
    ("192.168.1.11:8080", LAN, False),
    ("[::ffff:192.168.1.10]:8080", LAN, True),
    # loopback names on loopback only
    ("localhost:8080", LOOPBACK, True),
    ("[::1]:8080", LOOPBACK, True),
    ("localhost:8080", LAN, False),
    ("127.0.0.1:8080", LAN, False),
    # a rebound name, and the machine's own name, unless listed
    ("rebind.attacker.example:8080", LAN, False),
    ("floor:8080", LAN, False),
    # listed: without a port (a proxy on 443, or the served port), with exactly its port
    ("floor.venue.lan", LAN, True),
    ("floor.venue.lan:8080", LAN, True),
    ("floor.venue.lan:9000", LAN, False),
    ("console.venue.lan:8443", LAN, True),
    ("console.venue.lan:8080", LAN, False),
    ("console.venue.lan", LAN, False),
    ("[fe80::1]:8080", LAN, True),
    ("floor.venue.lan.evil.example", LAN, False),
])
def test_a_console_answers_to_its_address_loopback_names_on_loopback_and_listed_names(
        host: str, here: tuple[str, int], allowed: bool) -> None:
    assert LISTED.allows(host, "http", here) is allowed


def test_an_origin_is_the_consoles_own_page_by_the_same_names() -> None:
    assert LISTED.allows_origin("http://192.168.1.10:8080", LAN)
    assert LISTED.allows_origin("https://floor.venue.lan", LAN)
    assert LISTED.allows_origin("https://console.venue.lan:8443", LAN)
    assert not LISTED.allows_origin("http://192.168.1.10:8081", LAN)
    assert not LISTED.allows_origin("https://evil.example", LAN)
    assert not LISTED.allows_origin("null", LAN)
    assert not LISTED.allows_origin("file://", LAN)
    assert not LISTED.allows_origin("ftp://192.168.1.10:8080", LAN)
    assert not LISTED.allows_origin("http://user@192.168.1.10:8080", LAN)
    assert Hosts().allows_origin("https://localhost", ("127.0.0.1", 443))
    assert not Hosts().allows_origin("http://localhost", ("127.0.0.1", 443))


def test_hostnames_in_the_config_must_be_host_names(tmp_path: Path) -> None:
    path = tmp_path / "floor.toml"
    path.write_text('[floor]\nvenue = "hall"\n[web]\nhostnames = ["floor.venue.lan", '
                    '"*.lan", "https://x"]\n')
    with pytest.raises(ConfigError) as err:
        load_floor_config(path)
    assert err.value.problems == ["web.hostnames: not a host name (name or name:port): "
                                  "'*.lan', 'https://x'"]
    path.write_text('[floor]\nvenue = "hall"\n[web]\nhostnames = ["floor.venue.lan:8443"]\n')
    assert load_floor_config(path).web.hostnames == ["floor.venue.lan:8443"]
