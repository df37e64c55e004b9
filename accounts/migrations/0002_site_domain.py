"""Point the Sites framework (used by allauth's emails) at SITE_URL."""

from __future__ import annotations

from urllib.parse import urlparse

from django.conf import settings
from django.db import migrations


def set_site(apps, schema_editor) -> None:
    Site = apps.get_model("sites", "Site")
    domain = urlparse(settings.SITE_URL).netloc or "127.0.0.1:8000"
    Site.objects.update_or_create(
        id=settings.SITE_ID, defaults={"domain": domain, "name": "Diamino"}
    )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial"), ("sites", "0002_alter_domain_unique")]
    operations = [migrations.RunPython(set_site, migrations.RunPython.noop)]
