from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

from rules.dawg import warm

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "diamino_site.settings")
application = get_wsgi_application()

# The move generator's DAWG, mapped before the first request (rules/dawg.py):
# no hint waits for it, and every worker reads the same pages of the page cache.
warm()
