"""What else a page makes its text engine decode: embedded fonts, form XObjects, Type 3 glyphs.

pypdf's text extraction never loads a font program, but PDFium does (FreeType needs it to map
glyphs), and it parses the content of every form XObject and Type 3 glyph the page draws. So a
400 KB file whose one font inflates to 400 MB took PDFium 8 s and 840 MB. These streams are
decoded here first, with pypdf under the same decompression cap as page content, and counted:
their bytes towards the page's and the file's limits, the tokens of the ones that are content
(forms and glyphs) towards the page's token limit. A font and its glyphs count once per file,
as PDFium loads a font once per document; a form's bytes count once per file too, but its
tokens count on every page that draws it, since each page parses it again.
"""

from __future__ import annotations

from typing import Any

_FONT_FILES = ("/FontFile", "/FontFile2", "/FontFile3")
_SEPARATORS = b" \n\r\t\f\x00()<>[]{}/%"
_DEPTH = 12  # forms inside forms; deeper nesting is not followed (and not drawn by PDFium either)


def tokens_in(data: bytes) -> int:
    """An upper bound on the operators and operands in content: its white space and delimiters."""
    return len(data) - len(data.translate(None, _SEPARATORS))


def resources_cost(page: Any, seen: set[Any]) -> tuple[int, int]:
    """(decoded bytes, content tokens) of the page's fonts, forms and glyphs not in `seen`.

    Raises pypdf's LimitReachedError when one stream inflates past the decompression cap.
    """
    cost = [0, 0]
    _walk(page.get("/Resources"), seen, set(), cost, 0)
    return cost[0], cost[1]


def _walk(resources: Any, seen: set[Any], drawn: set[Any], cost: list[int], depth: int) -> None:
    resources = _resolve(resources)
    if not hasattr(resources, "get") or depth > _DEPTH:
        return
    for font in _values(resources.get("/Font")):
        if not _first_time(font, seen):
            continue
        font = _resolve(font)
        if not hasattr(font, "get"):
            continue
        descriptors = [font.get("/FontDescriptor")]
        descriptors += [_resolve(d).get("/FontDescriptor") for d in _items(font.get("/DescendantFonts"))]
        for descriptor in map(_resolve, descriptors):
            if hasattr(descriptor, "get"):
                for name in _FONT_FILES:
                    _stream(descriptor.get(name), seen, cost, content=False)
        _stream(font.get("/ToUnicode"), seen, cost, content=False)
        for glyph in _values(font.get("/CharProcs")):
            _stream(glyph, seen, cost, content=True)
        _walk(font.get("/Resources"), seen, drawn, cost, depth + 1)
    for xobject in _values(resources.get("/XObject")):
        target = _resolve(xobject)
        if hasattr(target, "get") and target.get("/Subtype") == "/Form" and _first_time(xobject, drawn):
            data = target.get_data()
            cost[1] += tokens_in(data)
            if _first_time(xobject, seen):
                cost[0] += len(data)
            _walk(target.get("/Resources"), seen, drawn, cost, depth + 1)


def _stream(value: Any, seen: set[Any], cost: list[int], *, content: bool) -> None:
    if value is None or not _first_time(value, seen):
        return
    stream = _resolve(value)
    if not hasattr(stream, "get_data"):
        return
    data = stream.get_data()
    cost[0] += len(data)
    if content:
        cost[1] += tokens_in(data)


def _first_time(value: Any, seen: set[Any]) -> bool:
    """True the first time an indirect object is met (direct objects are always new)."""
    key = (value.idnum, value.generation) if hasattr(value, "idnum") else None
    if key is None:
        return True
    if key in seen:
        return False
    seen.add(key)
    return True


def _resolve(value: Any) -> Any:
    return value.get_object() if hasattr(value, "get_object") else value


def _values(value: Any) -> list[Any]:
    value = _resolve(value)
    if not hasattr(value, "keys"):
        return []
    return [value.raw_get(k) if hasattr(value, "raw_get") else value[k] for k in list(value.keys())]


def _items(value: Any) -> list[Any]:
    value = _resolve(value)
    return list(value) if isinstance(value, list) else []
