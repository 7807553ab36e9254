"""trtllm-serve's flags per release: one build is supported (its one table), and
click's own errors for its flags are the splitter's, so there is no release check.
"""

from __future__ import annotations

#: The plug-in part ``check_spellings``: none.
check_spellings = None
