"""The producer's settings ([broadcast], [overlay]) are accepted when sound, and refused with
every problem named as ``file: key: what is wrong`` when not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablesvc.config.table import ConfigError, load_config
from tablesvc.overlay.server import OverlaySettings

BASE = '[table]\nvenue = "demo"\nid = "t01"\nseats = 9\n'


def write(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(BASE + extra)
    return path


def test_the_broadcast_and_overlay_settings_are_read(tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "ann.png").write_bytes(b"\x89PNG")
    (tmp_path / "theme.css").write_text(":root { --accent: #e91e63; }")
    (tmp_path / "token").write_text("s3cret\n")
    path = write(tmp_path, '[broadcast]\ndelay_s = 30\nequity_dead_cards = "none"\n'
                 '[overlay]\nhost = "0.0.0.0"\nport = 9000\ntoken_file = "token"\n'
                 'layout = 10\ntheme = "theme.css"\n[overlay.photos]\nAnn = "photos/ann.png"\n')
    cfg = load_config(path)
    assert cfg.broadcast.delay_s == 30 and cfg.broadcast.equity_dead_cards == "none"
    settings = OverlaySettings.load(cfg, path)
    assert (settings.host, settings.port, settings.layout) == ("0.0.0.0", 9000, 10)
    assert settings.token == "s3cret" and settings.delay_s == 30
    assert settings.photos == {"Ann": tmp_path / "photos" / "ann.png"}


def test_the_layout_defaults_to_the_smallest_that_holds_the_table(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, ""))
    assert OverlaySettings.load(cfg, tmp_path / "table.toml").layout == 9
    path = tmp_path / "six.toml"
    path.write_text(BASE.replace("seats = 9", "seats = 5"))
    assert OverlaySettings.load(load_config(path), path).layout == 6


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
    assert any(p.startswith("overlay.token_file:") and "hole cards" in p for p in problems)


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
