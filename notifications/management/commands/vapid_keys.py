"""``manage.py vapid_keys``: a new VAPID key pair for web push, as the settings take it."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.management.base import BaseCommand


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Command(BaseCommand):
    help = (
        "Print a new VAPID key pair (P-256) for web push, as environment lines: "
        "put them in .env (or the environment) and restart. Changing the pair "
        "makes every device subscribe again."
    )

    def handle(self, *args: object, **options: object) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        private = key.private_numbers().private_value.to_bytes(32, "big")
        public = key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.stdout.write(f"DIAMINO_VAPID_PUBLIC_KEY={_b64url(public)}")
        self.stdout.write(f"DIAMINO_VAPID_PRIVATE_KEY={_b64url(private)}")
