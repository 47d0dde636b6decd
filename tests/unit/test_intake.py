"""A command's bytes are checked before anything reads them (tablesvc.pipeline.intake).

Every payload here once killed paho's network thread, made the process exit when the
journal could not encode it, or would be journalled and replayed for ever; each is refused
with a sentence the controller's operator can act on.
"""

from __future__ import annotations

import pytest

from tablesvc.pipeline.intake import MAX_DEPTH, IntakeError, decode_command, request_id_of

LIMIT = 8192


@pytest.mark.parametrize(("payload", "words"), [
    (b'{"from_seq": 1e999, "to_seq": 1e999}', "number 1e999 is out of range"),
    (b'{"from_seq": 1, "to_seq": 1' + b"0" * 30 + b"}", "(31 digits) is out of range"),
    (b'{"seat": 9007199254740992}', "out of range (at most 9007199254740991)"),
    (b'{"stack": NaN}', "NaN is not a number JSON allows"),
    (b'{"stack": -Infinity}', "-Infinity is not a number JSON allows"),
    (b"[" * 100_000 + b"]" * 100_000, "a command may have at most 8192"),
    (b'{"a": ' + b"[" * 2000 + b"]" * 2000 + b"}", f"deeper than {MAX_DEPTH} levels"),
    (b'{"name": "\\ud800"}', "body.name: the string holds a lone surrogate"),
    (b'{"\\udfff": 1}', "lone surrogate"),
    (b'{"seat": 1, "seat": 3}', "key 'seat' is given twice"),
    (b"\xff\xfe", "not UTF-8"),
    (b"[1, 2]", "the body must be a JSON object"),
    (b"{not json", "invalid JSON body"),
    (b'{"name": "' + b"x" * 9000 + b'"}', "the body is 9012 bytes"),
], ids=["1e999", "10^30", "2^53", "NaN", "-Infinity", "deep-100k", "deep", "surrogate",
        "surrogate-key", "key-twice", "not-utf8", "array", "not-json", "2-too-large"])
def test_a_body_that_could_break_the_service_is_refused_saying_why(
        payload: bytes, words: str) -> None:
    with pytest.raises(IntakeError) as caught:
        decode_command(payload, LIMIT)
    assert words in str(caught.value)


def test_a_sound_body_is_read_as_it_was_sent() -> None:
    body = decode_command('{"request_id": "r1", "seat": 3, "name": "Zoë", "stack": 10000, '
                          '"reason": "[not] {nested} \\"quoted\\""}'.encode(), LIMIT)
    assert body == {"request_id": "r1", "seat": 3, "name": "Zoë", "stack": 10000,
                    "reason": '[not] {nested} "quoted"'}
    assert decode_command(b"", LIMIT) == {}


def test_the_request_id_of_a_refused_body_is_echoed_when_it_can_be_read_safely() -> None:
    assert request_id_of(b'{"request_id": "r7", "stack": NaN}') == "r7"
    assert request_id_of(b'{"request_id": 12, "from_seq": 1e999}') == 12
    assert request_id_of(b'{"request_id": "\\ud800"}') is None
    assert request_id_of(b'{"request_id": true}') is None
    assert request_id_of(b"[" * 5000 + b"]" * 5000) is None
