"""The command line says what each of its options does: every option and argument of every
command (sub-commands of sub-commands too) has help text, and the commands that serve web
pages (overlay, floor, tournament) share one ``--host``/``--port`` pair, worded alike."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from tablesvc.commands.cli import build_parser

WEB_COMMANDS = ("overlay", "floor", "tournament")


def commands(parser: argparse.ArgumentParser, path: str = "tablesvc"
             ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The parser and every command's, by the words that call it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from commands(child, f"{path} {name}")


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """A command's options and arguments by their name (``--config``, ``journal``), the
    sub-command choosers aside."""
    return {(a.option_strings[-1] if a.option_strings else a.dest): a for a in parser._actions
            if not isinstance(a, argparse._SubParsersAction)}


def test_every_option_of_every_command_has_help_text() -> None:
    walked = dict(commands(build_parser()))
    assert {"tablesvc run", "tablesvc replay", "tablesvc deck enroll",
            "tablesvc chips enroll"} <= set(walked)  # the walk reaches nested commands
    missing = [f"{path} {name}" for path, parser in walked.items()
               for name, action in options(parser).items()
               if not (action.help or "").strip() or action.help == argparse.SUPPRESS]
    assert missing == []


def test_the_web_commands_share_host_and_port_worded_alike() -> None:
    walked = dict(commands(build_parser()))
    for option in ("--host", "--port"):
        helps = {}
        for name in WEB_COMMANDS:
            action = options(walked[f"tablesvc {name}"])[option]
            assert action.default is None, (name, option)  # absent: the config's
            # the same words, but for the section and the default port
            helps[name] = (action.help or "").replace("[overlay]", "[web]")
            for port in ("8765", "8080", "8090"):
                helps[name] = helps[name].replace(port, "PORT")
        assert len(set(helps.values())) == 1, helps


@pytest.mark.parametrize("command", WEB_COMMANDS)
def test_host_and_port_are_read_on_each_web_command(command: str) -> None:
    args = build_parser().parse_args([command, "--config", "x.toml", "--host", "0.0.0.0",
                                      "--port", "8181"])
    assert (args.host, args.port) == ("0.0.0.0", 8181)
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--config", "x.toml", "--port", "65536"])
