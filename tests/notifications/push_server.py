"""A real push service on 127.0.0.1, for the web push tests: it checks what a browser's would.

``PushService`` is an ``http.server`` in a thread. Each device it serves has a
key pair made here (as a browser makes one); ``subscription()`` gives what the
browser would hand the page. On every POST it:

- checks the VAPID header (RFC 8292): ``Authorization: vapid t=<JWT>, k=<key>``,
  ``k`` the site's public key, the JWT signed ES256 by that key, its ``aud`` the
  origin of the endpoint and its ``exp`` in the future (401 otherwise);
- decrypts the body (RFC 8291, ``Content-Encoding: aes128gcm``) with the
  device's private key and auth secret, with http_ece (400 when it cannot);
- answers the next status of ``answers`` (201 once they are used up), and
  records what it received in ``received`` (the statuses it answered too).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_bytes(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


def vapid_pair() -> tuple[str, str]:
    """A VAPID key pair as the settings take it: (public, private), base64url."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    return b64url(public_bytes(key)), b64url(private)


@dataclass
class Device:
    """A browser's side of one subscription: its keys, kept here to decrypt."""

    name: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))


@dataclass
class Received:
    device: str
    status: int
    claims: dict[str, Any] | None = None
    payload: dict[str, Any] | None = None
    error: str = ""


class PushService:
    def __init__(self, vapid_public_key: str) -> None:
        self.vapid_public_key = vapid_public_key
        self.devices: dict[str, Device] = {}
        self.answers: list[int] = []
        self.received: list[Received] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                name = self.path.rsplit("/", 1)[-1]
                record = service.check(name, self.headers, body)
                if not record.error:
                    record.status = service.answers.pop(0) if service.answers else 201
                service.received.append(record)
                self.send_response(record.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet tests

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> PushService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def subscription(self, name: str) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives the page, for a new device ``name``."""
        device = self.devices[name] = Device(name)
        return {
            "endpoint": f"{self.origin}/push/{name}",
            "keys": {"p256dh": b64url(public_bytes(device.key)), "auth": b64url(device.auth)},
        }

    def check(self, name: str, headers: Message, body: bytes) -> Received:
        device = self.devices.get(name)
        if device is None:
            return Received(name, 404, error="no such subscription")
        try:
            claims = self.verify_vapid(headers.get("Authorization", ""))
        except ValueError as exc:
            return Received(name, 401, error=str(exc))
        if headers.get("Content-Encoding") != "aes128gcm":
            return Received(name, 415, claims, error="not aes128gcm")
        try:
            plain = http_ece.decrypt(
                body, private_key=device.key, auth_secret=device.auth, version="aes128gcm"
            )
        except Exception as exc:
            return Received(name, 400, claims, error=f"cannot decrypt: {exc}")
        return Received(name, 0, claims, json.loads(plain))

    def verify_vapid(self, authorization: str) -> dict[str, Any]:
        """The JWT's claims once its signature, audience and expiry are right (RFC 8292)."""
        scheme, _space, params = authorization.partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError("not a vapid Authorization")
        fields = dict(part.strip().split("=", 1) for part in params.split(",") if "=" in part)
        if fields.get("k") != self.vapid_public_key:
            raise ValueError("k is not the site's public key")
        token = fields.get("t", "")
        head, claims_part, signature = token.split(".")
        if json.loads(unb64url(head)).get("alg") != "ES256":
            raise ValueError("not ES256")
        raw = unb64url(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public = ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), unb64url(self.vapid_public_key)
        )
        try:
            public.verify(der, f"{head}.{claims_part}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise ValueError("bad signature") from None
        claims = json.loads(unb64url(claims_part))
        if claims.get("aud") != self.origin:
            raise ValueError(f"aud {claims.get('aud')!r} is not {self.origin!r}")
        if int(claims.get("exp", 0)) <= time.time():
            raise ValueError("expired")
        return claims
