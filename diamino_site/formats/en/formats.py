"""English dates and times: "Dec. 3, 2026, 10:19 AM".

Django's English formats end a time with "a.m." or "p.m.", so every sentence
that ends with a deadline read "until Dec. 3, 2026, 10:19 a.m..". "AM"/"PM"
end with a letter, and the rest is Django's own (French needs nothing: its
times end with a digit).
"""

from __future__ import annotations

DATETIME_FORMAT = "N j, Y, g:i A"
SHORT_DATETIME_FORMAT = "m/d/Y g:i A"
TIME_FORMAT = "g:i A"
