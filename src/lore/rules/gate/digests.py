"""Digests labelled as such: a hash the rule quotes is not an encoded payload.

The spec holds long encoded blobs because a blob can carry a message the person approving never
reads. A digest carries none: `sha512-<base64>` in a lockfile's integrity field, or
`sha256:<hex>` of an image, is the output of a hash, bytes with no text in them. So a run is read
as a digest, and not as a blob, only when all three hold:

- it is labelled with its algorithm (`sha512-`, `sha256:`, `md5=` ...) right before it;
- it decodes (base64 or hex) to exactly the number of bytes that algorithm gives;
- those bytes are not text: a payload dressed as a digest (`sha512-` before base64 of a sentence
  of the right length) decodes to printable characters and stays a blob.
"""

from __future__ import annotations

import base64
import binascii
import re

_SIZES = {"md5": 16, "sha1": 20, "sha224": 28, "sha256": 32, "sha384": 48, "sha512": 64}
_LABELLED = re.compile(r"(?i)(md5|sha1|sha224|sha256|sha384|sha512)[-:=]([A-Za-z0-9+/_=-]+)")
_TEXT_SHARE = 0.8


def _decoded(body: str) -> bytes | None:
    if re.fullmatch(r"[0-9a-fA-F]+", body) and len(body) % 2 == 0:
        return bytes.fromhex(body)
    try:
        return base64.b64decode(
            body + "=" * (-len(body) % 4),
            altchars=b"-_" if "-" in body or "_" in body else None,
            validate=True,
        )
    except (binascii.Error, ValueError):
        return None


def is_text(data: bytes) -> bool:
    """Whether bytes read as text: mostly printable ASCII or whitespace."""
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in data)
    return bool(data) and printable >= _TEXT_SHARE * len(data)


def labelled_digest(text: str, start: int, end: int) -> bool:
    """Whether the run at text[start:end] (with its label, inside the run or just before it) is a
    digest of the algorithm it is labelled with: the right length, and no text inside."""
    lo = max(0, start - 8)
    m = next(
        (m for m in _LABELLED.finditer(text, lo, end) if m.start() <= start < m.end() or m.start(2) == start),
        None,
    )
    if m is None or m.end() != end:
        return False
    data = _decoded(m.group(2))
    return data is not None and len(data) == _SIZES[m.group(1).lower()] and not is_text(data)
