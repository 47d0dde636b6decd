"""The producer's settings ([broadcast], [overlay]) are accepted when sound, and refused with
every problem named as ``file: key: what is wrong`` when not. The overlay's token is made at
first start, private and long enough; one given that is not is refused without quoting it."""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

import pytest

from tablesvc.config.table import ConfigError, load_config
from tablesvc.overlay.server import OverlaySettings
from tests.venue import make_certs

BASE = '[table]\nvenue = "demo"\nid = "t01"\nseats = 9\n'


def write(tmp_path: Path, extra: str, name: str = "table.toml", base: str = BASE) -> Path:
    """A config whose storage dir is the test's own (the overlay keeps its token there)."""
    path = tmp_path / name
    path.write_text(f'{base}[storage]\ndir = "{tmp_path / "store"}"\n{extra}')
    return path


def private(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def test_the_broadcast_and_overlay_settings_are_read(tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "ann.png").write_bytes(b"\x89PNG")
    (tmp_path / "theme.css").write_text(":root { --accent: #e91e63; }")
    token = secrets.token_urlsafe(16)  # 22 characters: 128 bits, the least a token may have
    private(tmp_path / "token", token + "\n")
    path = write(tmp_path, '[broadcast]\ndelay_s = 30\nequity_dead_cards = "none"\n'
                 '[overlay]\nport = 9000\ntoken_file = "token"\n'
                 'layout = 10\ntheme = "theme.css"\n[overlay.photos]\nAnn = "photos/ann.png"\n')
    cfg = load_config(path)
    assert cfg.broadcast.delay_s == 30 and cfg.broadcast.equity_dead_cards == "none"
    settings = OverlaySettings.load(cfg, path)
    assert (settings.host, settings.port, settings.layout) == ("127.0.0.1", 9000, 10)
    assert settings.token == token and settings.delay_s == 30
    assert settings.token_file == tmp_path / "token" and not settings.exposed
    assert settings.photos == {"Ann": tmp_path / "photos" / "ann.png"}
    assert not (tmp_path / "store").exists()  # a token of its own: none made


def test_served_beyond_this_machine_the_overlay_loads_its_certificate(tmp_path: Path) -> None:
    certs = make_certs(tmp_path / "certs")
    path = write(tmp_path, '[overlay]\nhost = "0.0.0.0"\n'
                 'hostnames = ["overlay-box", "192.0.2.7"]\n'
                 f'cert_file = "{certs / "server.crt"}"\nkey_file = "{certs / "server.key"}"\n')
    settings = OverlaySettings.load(load_config(path), path)
    assert settings.exposed and settings.tls is not None
    assert settings.answers_to() == {"overlay-box", "192.0.2.7"}  # not 0.0.0.0, not localhost
    (tmp_path / "bad.crt").write_text("not a certificate\n")
    path = write(tmp_path, '[overlay]\nhost = "192.0.2.7"\n'
                 f'cert_file = "bad.crt"\nkey_file = "{certs / "server.key"}"\n', "bad.toml")
    with pytest.raises(ConfigError) as err:
        OverlaySettings.load(load_config(path), path)
    assert [p.split(":")[0] for p in err.value.problems] == ["overlay.cert_file"]
    assert "bad.crt" in err.value.problems[0]


def test_the_first_start_makes_a_private_token_and_the_next_reuses_it(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    old = os.umask(0o022)  # a usual umask: the file is private all the same
    try:
        first = OverlaySettings.load(load_config(path), path)
    finally:
        os.umask(old)
    made = tmp_path / "store" / "overlay.token"
    assert first.token_file == made
    assert made.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "store").stat().st_mode & 0o777 == 0o700
    assert made.read_text() == first.token + "\n"
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", first.token)  # 32 random bytes: 256 bits
    again = OverlaySettings.load(load_config(path), path)
    assert again.token == first.token
    (tmp_path / "t02").mkdir()
    other = write(tmp_path / "t02", "")  # another table's storage dir: another token
    assert OverlaySettings.load(load_config(other), other).token != first.token


@pytest.mark.parametrize(("text", "mode", "says"), [
    ("s3cret", 0o600, "at least 22 of A-Z a-z 0-9 - _ (128 bits; it holds 6 characters"),
    ("dCXufkU2b40HcvHwabiEM", 0o600, "it holds 21 characters"),
    ("pässwörd-" + "x" * 20, 0o600, "not all ASCII"),
    ("uRekSkBmH_In1gjCXvgKGOxOaAayWdKORoWxtecGTRA", 0o644,
     "may be read by others than its owner (mode 0644)"),
    ("4SSKkCy8K8D-FgM-z9_1K5ifiTOYlmKXV00LIbm1r7o", 0o640, "(mode 0640): chmod 600"),
    ("", 0o600, "it holds 0 characters"),
], ids=["short", "21-chars", "not-ascii", "mode-0644", "mode-0640", "empty"])
def test_a_weak_or_readable_token_file_is_refused_naming_the_file_and_the_key(
        tmp_path: Path, text: str, mode: int, says: str) -> None:
    token = private(tmp_path / "token", text, mode)
    path = write(tmp_path, '[overlay]\ntoken_file = "token"\ntheme = "gone.css"\n')
    with pytest.raises(ConfigError) as err:
        OverlaySettings.load(load_config(path), path)
    problems = err.value.problems
    assert sorted(p.split(":")[0] for p in problems) == ["overlay.theme", "overlay.token_file"]
    said = next(p for p in problems if p.startswith("overlay.token_file:"))
    assert str(token) in said and says in said
    assert str(path) in str(err.value)
    if len(text) > 8:
        assert text not in str(err.value)  # the token itself is never repeated


def test_the_default_token_file_is_held_to_the_same_rules(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    (tmp_path / "store").mkdir()
    private(tmp_path / "store" / "overlay.token", secrets.token_urlsafe(32), 0o604)
    with pytest.raises(ConfigError) as err:
        OverlaySettings.load(load_config(path), path)
    (problem,) = err.value.problems
    assert problem.startswith("overlay.token_file (not set: the default in storage.dir): "
                              f"{tmp_path / 'store' / 'overlay.token'} may be read by others")
    # a storage dir that cannot be made: said, with what to do
    (tmp_path / "file").write_text("")
    path = tmp_path / "nowhere.toml"
    path.write_text(BASE + f'[storage]\ndir = "{tmp_path / "file" / "store"}"\n')
    with pytest.raises(ConfigError) as err:
        OverlaySettings.load(load_config(path), path)
    (problem,) = err.value.problems
    assert "cannot be made" in problem and "set token_file" in problem


def test_without_a_layout_the_picture_fits_the_players_and_a_configured_one_is_kept(
        tmp_path: Path) -> None:
    """No ``layout``: none is fixed, the picture takes the smallest that holds the players at
    each hand's start (``TableView``; tests/unit/test_overlay_model.py); one configured is
    the picture's, whatever the players."""
    cfg = load_config(write(tmp_path, ""))
    assert OverlaySettings.load(cfg, tmp_path / "table.toml").layout is None
    path = write(tmp_path, "[overlay]\nlayout = 10\n", "ten.toml")
    assert OverlaySettings.load(load_config(path), path).layout == 10


def test_bad_broadcast_settings_are_refused_with_every_problem(tmp_path: Path) -> None:
    path = write(tmp_path, '[broadcast]\ndelay_s = -1\nequity_dead_cards = "some"\n'
                 'equity_samples = 100\n[overlay]\nhost = "192.0.2.7"\nport = 70000\n')
    with pytest.raises(ConfigError) as err:
        load_config(path)
    problems = err.value.problems
    assert any(p.startswith("broadcast.delay_s:") for p in problems)
    assert any(p.startswith("broadcast.equity_dead_cards:") for p in problems)
    assert any(p.startswith("broadcast.equity_samples:") for p in problems)
    assert any(p.startswith("overlay.port:") for p in problems)
    assert any(p.startswith("overlay.key_file:") and "hole cards" in p and "TLS" in p
               for p in problems)


def test_the_address_given_on_the_command_line_is_held_to_the_same_rules(
        tmp_path: Path) -> None:
    path = write(tmp_path, '[overlay]\nhostnames = ["overlay-box:8765"]\n')
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert [p.split(":")[0] for p in err.value.problems] == ["overlay.hostnames"]
    path = write(tmp_path, "")
    with pytest.raises(ConfigError) as err:
        OverlaySettings.load(load_config(path), path, host="0.0.0.0")
    assert sorted(p.split(":")[0] for p in err.value.problems) == [
        "overlay.hostnames", "overlay.key_file"]
    assert not (tmp_path / "store").exists()  # a refused start makes no token


def test_a_layout_too_small_for_the_table_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, "[overlay]\nlayout = 6\n"))
    assert err.value.problems == [
        "overlay: layout 6 has no place for table.seats = 9; use 6, 9 or 10 seats at least"]


def test_missing_overlay_files_are_all_listed_at_start(tmp_path: Path) -> None:
    path = write(tmp_path, '[overlay]\ntheme = "nope.css"\npassword_file = "gone"\n'
                 '[overlay.flags]\nAnn = "flags/de.png"\n')
    with pytest.raises(ConfigError) as err:
        OverlaySettings.load(load_config(path), path)
    assert sorted(p.split(":")[0] for p in err.value.problems) == [
        "overlay.flags.Ann", "overlay.password_file", "overlay.theme"]
    assert str(path) in str(err.value)
