"""One release: no release check."""

from __future__ import annotations

check_spellings = None
