"""The site's template tags (``{% load site %}``), for the templates every page uses.

``{% fixed_fragment %}`` is the game page's (``games/templatetags/board.py``): a
block rendered once per language and process. ``templates/base.html`` puts the
header's and the footer's links and labels in such blocks, which took about 0.4 ms
of every page through ``{% url %}``, ``{% static %}`` and ``{% translate %}``.
"""

from __future__ import annotations

from django import template

from games.templatetags.board import fixed_fragment

register = template.Library()
register.tag("fixed_fragment", fixed_fragment)
