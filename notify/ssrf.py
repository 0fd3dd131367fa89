"""Where a webhook may point: a guard against server-side request forgery.

Production (``TABULA_WEBHOOK_ALLOW_PRIVATE = False``, the default): ``https`` only, the host is
resolved here, every address it resolves to must be public (no loopback, private, link-local
— 169.254.169.254 —, multicast, reserved or unspecified address), and the request then connects
to the address that was checked (so a DNS answer that changes between check and connect cannot
redirect it). Under `make run` and the test settings ``TABULA_WEBHOOK_ALLOW_PRIVATE = True``:
``http`` and loopback receivers are allowed, so a local receiver works.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings


class UnsafeUrl(ValueError):
    """The URL may not be called (the message says why, without probing further)."""


@dataclass(frozen=True)
class Target:
    url: str  # the URL to request, with the checked address in place of the host
    host: str  # the TLS server name
    host_header: str
    address: str


def _allowed(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def check(url: str, *, resolve: bool = True) -> Target:
    """The address to connect to for ``url``, or `UnsafeUrl`."""
    allow_private = bool(getattr(settings, "TABULA_WEBHOOK_ALLOW_PRIVATE", False))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeUrl("The URL is malformed.") from exc
    schemes = {"https", "http"} if allow_private else {"https"}
    if parts.scheme not in schemes:
        raise UnsafeUrl("Webhook URLs must use https." if not allow_private else "Webhook URLs use http or https.")
    host = parts.hostname or ""
    if not host or parts.username or parts.password:
        raise UnsafeUrl("The URL needs a host and no credentials.")
    port = port or (443 if parts.scheme == "https" else 80)
    if not resolve:
        return Target(url, host, parts.netloc, "")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnsafeUrl("The host does not resolve.") from exc
    addresses = sorted({str(info[4][0]) for info in infos})
    if not addresses:
        raise UnsafeUrl("The host does not resolve.")
    if not allow_private:
        for address in addresses:
            if not _allowed(ipaddress.ip_address(address.split("%")[0])):
                raise UnsafeUrl("The host resolves to an address that is not public.")
    address = addresses[0]
    literal = f"[{address}]" if ":" in address else address
    netloc = f"{literal}:{port}"
    checked = parts._replace(netloc=netloc).geturl()
    return Target(checked, host, parts.netloc, address)
