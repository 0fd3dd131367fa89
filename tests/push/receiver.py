"""A local Web Push service: it takes what the server pushes, decrypts it with the subscriber's keys
(RFC 8291, as a browser would), and checks the VAPID signature (RFC 8292)."""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Push:
    headers: dict[str, str]
    body: bytes
    path: str


@dataclass
class Receiver:
    """Answers each push with ``status`` (201 by default); keeps every one in ``pushes``."""

    status: int = 201
    pushes: list[Push] = field(default_factory=list)
    private_key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: threading.get_ident().to_bytes(8, "big") * 2)
    arrived: threading.Event = field(default_factory=threading.Event)
    server: ThreadingHTTPServer | None = None

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # the stdlib's name
                length = int(self.headers.get("Content-Length", "0"))
                receiver.pushes.append(Push(dict(self.headers.items()), self.rfile.read(length), self.path))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()
                receiver.arrived.set()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    @property
    def endpoint(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/push/{id(self)}"

    def keys(self) -> dict[str, str]:
        point = self.private_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        return {"p256dh": b64(point), "auth": b64(self.auth)}

    def decrypt(self, push: Push) -> dict[str, Any]:
        """The payload, decrypted as the browser would (aes128gcm)."""
        assert push.headers.get("Content-Encoding") == "aes128gcm"
        plain = http_ece.decrypt(push.body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm")
        return json.loads(plain)

    def vapid_claims(self, push: Push, server_key: str) -> dict[str, Any]:
        """The VAPID JWT's claims, once its ES256 signature checks with the key the header names
        (which must be the server's published one)."""
        scheme, _, params = push.headers["Authorization"].partition(" ")
        assert scheme == "vapid"
        parts = dict(p.strip().split("=", 1) for p in params.split(","))
        assert parts["k"] == server_key
        head, claims, signature = parts["t"].split(".")
        raw = unb64(signature)
        assert len(raw) == 64
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(parts["k"]))
        try:
            public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature as exc:
            raise AssertionError("the VAPID signature does not check") from exc
        assert json.loads(unb64(head))["alg"] == "ES256"
        return json.loads(unb64(claims))
