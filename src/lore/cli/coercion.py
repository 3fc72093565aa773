"""Typer's value checking without pydantic for the values that need none.

Typer (0.2x) checks every parameter's value with a pydantic `TypeAdapter`, built the first time
the parameter is parsed; an option left out is parsed too, and so is `--help` itself. Importing
pydantic and building those adapters was a large share of a short command such as `lore review
resolve`, for values that are already what they should be or absent. `install` has every parameter build nothing for
an absent value (Typer's own coercion returns it untouched before any adapter is asked), return
a value already of a plain type as it is (a `str` given a string, `list[str]` given strings, an
`int` given an int within its bounds, such as its default: exactly what the adapter returns for
them), and hand anything
else (a number typed on the command line, a path, a choice, a bounded int) to the parameter's
own Typer coercion, built only then. A Typer without this machinery (older versions check
values through click) is left alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

try:  # Typer's runtime coercion (0.2x)
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer.core import _TyperParameter
except ImportError:  # pragma: no cover - depends on the installed Typer
    RuntimeParam = None  # type: ignore[assignment,misc]


def plain_kind(param: Any) -> type | None:
    """The type whose values `param` may return unchecked (str, list, int, bool), or None when
    its adapter may do more than a plain pydantic type would: a parser, bounds, a file, a path."""
    descriptor = getattr(param, "type_descriptor", None)
    info = getattr(descriptor, "parameter_info", None)
    if descriptor is None or info is None or descriptor.file_annotation is not None or info.parser:
        return None
    annotation = descriptor.annotation
    if annotation is str or annotation is bool:
        return annotation
    if annotation == list[str]:
        return list
    if annotation is int and not info.clamp:  # bounds are checked by `QuickParam` itself
        return int
    return None


def within_bounds(value: int, param: Any) -> bool:
    """Whether an int lies within the parameter's `min` and `max` (either may be absent)."""
    info = param.type_descriptor.parameter_info
    return (info.min is None or value >= info.min) and (info.max is None or value <= info.max)


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class QuickParam(RuntimeParam):
        """Returns a value already of the parameter's plain type (a list of strings for
        `list[str]`, as the adapter does); hands the rest to Typer's own coercion, which takes
        this one's place on first use so it is built once. Absent values never get here: the
        base class returns them first, as it does for Typer's own."""

        kind: type | None
        owner: Any  # the Typer parameter (its bounds, and where Typer's own coercion goes)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.kind is None:
                pass
            elif self.kind is list:
                if isinstance(value, list | tuple) and all(type(item) is str for item in value):
                    return list(value)
            elif type(value) is int:
                if self.kind is int and within_bounds(value, self.owner):
                    return value
            elif type(value) is self.kind:
                return value
            real = build_runtime_param(self.owner.type_descriptor)
            self.owner._runtime_param = real
            return real._coerce_value(value, param=param, ctx=ctx)


_installed = False


def install() -> None:
    """Give every Typer parameter made from now on (and not yet parsed) the quick check. Once per
    process; `lore.cli.app` calls it, so the CLI's tests run the same path as `lore` does."""
    global _installed
    if RuntimeParam is None or _installed:
        return
    _installed = True
    typers_own = _TyperParameter.get_runtime_param

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            descriptor = self.type_descriptor
            self._runtime_param = QuickParam(
                parameter_info=descriptor.parameter_info,
                annotation=descriptor.annotation,
                kind=plain_kind(self),
                owner=self,
            )
        return typers_own(self)

    _TyperParameter.get_runtime_param = get_runtime_param  # type: ignore[method-assign]
