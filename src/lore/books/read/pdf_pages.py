"""The text of a PDF's pages, with bounded work per page and per file.

A page's text costs as much as decoding and parsing its content stream, and nothing stops a
small file from pointing all its pages at one stream that inflates to tens of megabytes: read
naively, the same stream is decoded and parsed once per page (a 245 KB file took minutes). So
pages whose content and resources are the same objects are extracted once and the text reused;
each page's decoded content is bounded before it is parsed; the decoded content of all pages
together is bounded (a shared stream counts for every page that shows it, since its text is
kept for each); a page with more tokens than a text page could hold is not parsed at all (its
cost in the engine grows with them: 30 MB of `q` took PDFium 18 s and 2.5 GB); and a wall-clock
budget, checked between pages, is the last line. The text itself comes from `pdf_engines`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from lore.books.read.limits import ReadLimits, megabytes, over_limit
from lore.books.read.pdf_engines import PageTexts
from lore.books.read.pdf_resources import resources_cost, tokens_in

_DECODE_LIMITS = (
    "zlib_maximum_output_length",
    "lzw_maximum_output_length",
    "run_length_maximum_output_length",
    "brotli_maximum_output_length",
    "array_based_stream_maximum_output_length",
)


def page_texts(reader: Any, book: str, limits: ReadLimits, engine: PageTexts) -> tuple[list[str], list[str]]:
    """Every page's text in order (pages found by pypdf's `reader`, text read by `engine`), and
    a warning for each page that could not be read."""
    from pypdf.errors import LimitReachedError

    page_cap = limits.bytes("max_pdf_page_mb")
    token_cap = int(limits.max_pdf_page_tokens)
    total_cap = limits.bytes("max_pdf_content_mb")
    texts: list[str] = []
    warnings: list[str] = []
    extracted: dict[tuple[Any, ...], tuple[int, str]] = {}
    loaded: set[Any] = set()  # fonts, forms and glyphs already counted (once per file)
    total = 0
    started = time.monotonic()
    with _decoding_capped_at(page_cap + 1):
        for number, page in enumerate(reader.pages, start=1):
            if number > 1 and time.monotonic() - started > limits.max_pdf_seconds:
                raise over_limit(
                    book,
                    f"reading its pages took too long (stopped at page {number})",
                    "max_pdf_seconds",
                    limits,
                )
            key = _same_content_key(page)
            known = extracted.get(key) if key is not None else None
            if known is None:
                try:
                    size, tokens = _decoded_size(page)
                except LimitReachedError:
                    size, tokens = page_cap + 1, 0
                except Exception as exc:  # a damaged page: say so, keep the others
                    warnings.append(f"page {number} could not be read ({_reason(exc)})")
                    texts.append("")
                    continue
                if size > page_cap:
                    raise over_limit(
                        book,
                        f"page {number}'s content decodes to more than {megabytes(page_cap)}",
                        "max_pdf_page_mb",
                        limits,
                    )
                try:
                    extra, extra_tokens = resources_cost(page, loaded)
                except LimitReachedError:
                    extra, extra_tokens = page_cap + 1, 0
                except Exception:  # a damaged font or form: the engine reads what it can
                    extra, extra_tokens = 0, 0
                if size + extra > page_cap:
                    raise over_limit(
                        book,
                        f"page {number}'s fonts and forms decode to more than {megabytes(page_cap)}",
                        "max_pdf_page_mb",
                        limits,
                    )
                total += extra
                tokens += extra_tokens
                if tokens > token_cap:
                    warnings.append(
                        f"page {number} could not be read (its content holds over {token_cap:,} tokens;"
                        " books.max_pdf_page_tokens)"
                    )
                    text = ""
                else:
                    text = _extract(engine, number, warnings)
                known = (size, text)
                if key is not None:
                    extracted[key] = known
            total += known[0]
            if total > total_cap:
                raise over_limit(
                    book,
                    f"its pages' content decodes to more than {megabytes(total_cap)} (at page {number})",
                    "max_pdf_content_mb",
                    limits,
                )
            texts.append(known[1])
    return texts, warnings


def _same_content_key(page: Any) -> tuple[Any, ...] | None:
    """Which objects a page is drawn from; pages with the same key show the same text.

    None when the page's content is not a shared indirect object (nothing to reuse).
    """
    from pypdf.generic import ArrayObject, IndirectObject

    def ref(value: Any) -> Any:
        if isinstance(value, IndirectObject):
            return (value.idnum, value.generation)
        return None

    raw = page.get("/Contents")
    if isinstance(raw, IndirectObject):
        resolved = raw.get_object()
        contents: Any = tuple(ref(v) for v in resolved) if isinstance(resolved, ArrayObject) else ref(raw)
    elif isinstance(raw, ArrayObject):
        contents = tuple(ref(v) for v in raw)
    else:
        return None
    if contents is None or (isinstance(contents, tuple) and None in contents):
        return None
    resources = page.get("/Resources")
    return (contents, ref(resources) if resources is not None else "none", str(page.get("/Rotate", 0)))


def _decoded_size(page: Any) -> tuple[int, int]:
    """The page's decoded content size in bytes, and how many tokens it holds at most."""
    contents = page.get_contents()
    if contents is None:
        return 0, 0
    data = contents.get_data()
    return len(data), tokens_in(data)


def _extract(engine: PageTexts, number: int, warnings: list[str]) -> str:
    try:
        return engine.text(number - 1)
    except Exception as exc:  # one unreadable page should not lose the book, nor go unsaid
        warnings.append(f"page {number} could not be read ({_reason(exc)})")
        return ""


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:120] if text else exc.__class__.__name__


@contextlib.contextmanager
def _decoding_capped_at(limit: int) -> Iterator[None]:
    """pypdf's own decompression limits set to ours, so a stream stops inflating at the cap
    instead of being inflated whole and measured afterwards (older pypdf: measured only)."""
    import pypdf

    apply = getattr(pypdf, "apply_configuration", None)
    if apply is None:
        yield
        return
    current = pypdf.get_configuration()
    overwrites = {name: limit for name in _DECODE_LIMITS if hasattr(current, name)}
    with apply(**overwrites):
        yield
