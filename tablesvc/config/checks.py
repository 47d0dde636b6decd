"""Checks that read a config as written, so that they run whatever else is wrong in it.

pydantic runs a model's after-validator only once every field of the model is valid, and a
field validator of a list or a table of sections only once each of its items is: a seat given
twice would hide behind an unknown key in one ``[[players]]`` table, a web address exposed
without logins behind a misspelt key of ``[web]``, until the installer had fixed those and run
``check-config`` again. The checks of a whole list, of one section against another and of a
section's keys against each other therefore read the input as written, each value they need
validated alone (``setting``), and their problems are reported beside pydantic's own
(``alongside``): every problem of a file in one pass.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

Loc = tuple[str | int, ...]
"""Where a problem is, from the model being validated (``()``: the model, or the field, itself)."""
T = TypeVar("T")


def setting(model: type[BaseModel], section: Any, key: str) -> Any:
    """``key`` of ``section`` as written, once valid by itself (its type and bounds, as the
    model's field has them), or the field's default when the section or the key is absent;
    None when it is wrong, or the section is no table (their own errors name them), or a
    required key is missing."""
    if section is None:
        section = {}
    if not isinstance(section, dict):
        return None
    field = model.model_fields[key]
    if key not in section:
        return None if field.is_required() else field.get_default(call_default_factory=True)
    try:
        return _adapter(model, key).validate_python(section[key])
    except ValidationError:
        return None


@functools.cache
def _adapter(model: type[BaseModel], key: str) -> TypeAdapter[Any]:
    field = model.model_fields[key]
    strict = bool(model.model_config.get("strict", False))
    alone: Any = Annotated[field.annotation, field]  # the field's type and its bounds
    return TypeAdapter(alone, config=ConfigDict(strict=strict))


def alongside(value: Any, handler: Callable[[Any], T], problems: Sequence[tuple[Loc, str]],
              title: str = "config") -> T:
    """``handler(value)`` (a wrap validator's), refused with its own errors and ``problems``
    together: either, or both."""
    try:
        result = handler(value)
    except ValidationError as exc:
        if not problems:
            raise
        raise _joined(exc.title, exc.errors(), problems) from None
    if problems:
        raise _joined(title, [], problems)
    return result


def _joined(title: str, errors: list[Any], problems: Sequence[tuple[Loc, str]]
            ) -> ValidationError:
    """One ValidationError of pydantic's ``errors`` (type, place and words kept) and ours."""
    details: list[InitErrorDetails] = [
        {"type": PydanticCustomError(e["type"], "{message}", {"message": e["msg"]}),
         "loc": tuple(e["loc"]), "input": e.get("input")} for e in errors]
    details += [{"type": PydanticCustomError("value_error", "Value error, {problem}",
                                             {"problem": text}),
                 "loc": loc, "input": None} for loc, text in problems]
    return ValidationError.from_exception_data(title, details)
