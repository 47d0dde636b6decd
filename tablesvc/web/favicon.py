"""The pages' icon, ``/favicon.ico``: a white spade on a disc of felt green, 32x32.

Every page a browser opens asks for ``/favicon.ico`` by itself, without the page's token or
session; each of the project's web servers (the floor console, the tournament controller's
pages, the overlay) answers it with this icon instead of 404. It is public on all three: the
same picture for every install, it tells nothing of a venue, a table or a hand (the floor's and
the controller's guard lets it through before a login as it does the login page; the overlay's
asks no token for it). The ``Host`` and ``Origin`` checks still apply to it.

The icon is drawn here rather than kept as a binary file: an ICO holding one PNG (what every
browser reads), its pixels worked out from the shapes below, four samples a pixel each way.
"""

from __future__ import annotations

import functools
import struct
import zlib

from aiohttp import web

PATH = "/favicon.ico"
CONTENT_TYPE = "image/x-icon"
SIZE = 32
FELT = (31, 122, 77, 255)
RIM = (18, 74, 46, 255)
WHITE = (255, 255, 255, 255)
CLEAR = (0, 0, 0, 0)


def _inside_spade(x: float, y: float) -> bool:
    """The spade, in a unit square (y down): two lobes, a point above them, a stem below."""
    lobes = any((x - cx) ** 2 + (y - 0.56) ** 2 <= 0.165 ** 2 for cx in (0.36, 0.64))
    # the point: between the lines from the tip (0.5, 0.17) down to the lobes' outer edges
    point = 0.17 <= y <= 0.6 and abs(x - 0.5) <= (y - 0.17) * 0.3 / 0.4
    # the stem: a triangle from the lobes' middle to a foot 0.24 wide
    stem = 0.55 <= y <= 0.83 and abs(x - 0.5) <= 0.02 + (y - 0.55) * 0.1 / 0.28
    return lobes or point or stem


def _colour(x: float, y: float) -> tuple[int, int, int, int]:
    r2 = (x - 0.5) ** 2 + (y - 0.5) ** 2
    if r2 > 0.49 ** 2:
        return CLEAR
    if r2 > 0.43 ** 2:
        return RIM
    return WHITE if _inside_spade(x, y) else FELT


def pixels(size: int = SIZE, samples: int = 4) -> list[list[tuple[int, int, int, int]]]:
    """The icon's RGBA rows, each pixel the mean of ``samples``² points in it."""
    rows = []
    for py in range(size):
        row = []
        for px in range(size):
            got = [_colour((px + (i + 0.5) / samples) / size, (py + (j + 0.5) / samples) / size)
                   for i in range(samples) for j in range(samples)]
            alpha = sum(c[3] for c in got)
            if alpha == 0:
                row.append(CLEAR)
                continue
            rgb = [round(sum(c[k] * c[3] for c in got) / alpha) for k in range(3)]
            row.append((rgb[0], rgb[1], rgb[2], round(alpha / len(got))))
        rows.append(row)
    return rows


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png(rows: list[list[tuple[int, int, int, int]]]) -> bytes:
    """An 8-bit RGBA PNG of ``rows``."""
    height, width = len(rows), len(rows[0])
    raw = b"".join(b"\x00" + bytes(v for p in row for v in p) for row in rows)
    return (b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b""))


def ico(image: bytes, size: int = SIZE) -> bytes:
    """An ICO file of one PNG image."""
    header = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(image), 6 + 16)
    return header + entry + image


@functools.cache
def icon() -> bytes:
    """The icon's file, drawn at the first request (not at every import)."""
    return ico(png(pixels()))


async def favicon(request: web.Request) -> web.Response:
    return web.Response(body=icon(), content_type=CONTENT_TYPE)


def add_route(app: web.Application) -> None:
    """``GET /favicon.ico`` (and HEAD) on an application."""
    app.router.add_get(PATH, favicon)
