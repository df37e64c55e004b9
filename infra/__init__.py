"""What every app may use, below them all: the Celery app, the rate limiter, the Redis cache.

The process's infrastructure, imported by the apps (games, accounts, moderation,
bymail, leagues…) and importing none of them: ``celery.py`` (the app and the
site's task class), ``ratelimit.py``, ``cache.py`` (the Redis cache that an
outage never turns into an error page) and ``outage.py`` (what the process
knows of a Redis that stopped answering). ``diamino_site`` (settings, URLs,
views) sits above every app.
"""
