"""Where a webhook may point: a guard against server-side request forgery.

Production (``TABULA_WEBHOOK_ALLOW_PRIVATE = False``, the default): ``https`` on port 443 only, the
host is resolved here, every address it resolves to must be a public receiver (below), and the
request then connects to the address that was checked (so a DNS answer that changes between check
and connect cannot redirect it; the check runs again at every delivery). Under `make run` and the
test settings ``TABULA_WEBHOOK_ALLOW_PRIVATE = True``: ``http`` and ``https`` on any port, to any
address, so a local receiver works.

A public receiver is an address that is globally reachable, and through which no non-global IPv4
address can be reached. The rules are spelled out here rather than left to ``is_global`` alone,
whose answer differs between Python versions (3.11 calls 192.0.0.8, fec0::1 and 3fff::1 global):

- IPv4: ``is_global``, not multicast, and not in 192.0.0.0/24 (IETF protocol assignments) or
  192.88.99.0/24 (the deprecated 6to4 relay anycast).
- IPv6 that leads to an IPv4 address: the IPv4-mapped ::ffff:0:0/96 (the socket connects to its
  IPv4 address), the NAT64 well-known prefix 64:ff9b::/96 (how an IPv6-only network reaches an IPv4
  one) and 6to4 2002::/16: allowed when the IPv4 address it carries is public.
- Any other IPv6: inside global unicast 2000::/3, ``is_global``, and not in 3fff::/20
  (documentation). That leaves out loopback, unspecified, the IPv4-compatible ::/96 (deprecated,
  never routed, whatever it embeds), the local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215: it
  translates to whatever its operator chose), discard-only, link-local, site-local fec0::/10,
  unique local, multicast, SRv6 5f00::/16, documentation and Teredo 2001::/32 (in the
  IETF-protocol block 2001::/23); should ``is_global`` ever accept Teredo, its server's and its
  (de-obfuscated) client's IPv4 addresses must be public too.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

_NOT_GLOBAL_V4 = (ipaddress.IPv4Network("192.0.0.0/24"), ipaddress.IPv4Network("192.88.99.0/24"))
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
_NOT_GLOBAL_V6 = (ipaddress.IPv6Network("3fff::/20"),)
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIXTOFOUR = ipaddress.IPv6Network("2002::/16")


class UnsafeUrl(ValueError):
    """The URL may not be called (the message says why, without probing further)."""


@dataclass(frozen=True)
class Target:
    url: str  # the URL to request, with the checked address in place of the host
    host: str  # the TLS server name
    host_header: str
    address: str


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries: mapped, NAT64 (well-known prefix), 6to4, Teredo."""
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip in _NAT64:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)  # the server's, and the client's (de-obfuscated)
    return []


def _public_v4(ip: ipaddress.IPv4Address) -> bool:
    return ip.is_global and not ip.is_multicast and not any(ip in net for net in _NOT_GLOBAL_V4)


def public(ip: IP) -> bool:
    """Whether a webhook may connect to ``ip`` (the rules are in the module's docstring)."""
    if isinstance(ip, ipaddress.IPv4Address):
        return _public_v4(ip)
    embedded = embedded_ipv4(ip)
    if ip in _MAPPED or ip in _NAT64 or ip in _SIXTOFOUR:  # they lead to their IPv4 address
        return all(_public_v4(v4) for v4 in embedded)
    if ip not in _GLOBAL_UNICAST or not ip.is_global or any(ip in net for net in _NOT_GLOBAL_V6):
        return False
    return all(_public_v4(v4) for v4 in embedded)  # Teredo, should a Python ever call it global


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
    default = 443 if parts.scheme == "https" else 80
    if port is None:
        port = default
    elif port != default and not allow_private:
        raise UnsafeUrl(f"Webhook URLs use the port of their scheme ({default}).")
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
            if not public(ipaddress.ip_address(address.split("%")[0])):
                raise UnsafeUrl("The host resolves to an address that is not public.")
    address = addresses[0]
    literal = f"[{address}]" if ":" in address else address
    netloc = f"{literal}:{port}"
    checked = parts._replace(netloc=netloc).geturl()
    return Target(checked, host, parts.netloc, address)
