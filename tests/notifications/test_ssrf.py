"""What a public webhook receiver is (notify/ssrf.py): every special-purpose form, as a literal and as
a name's DNS answer, and the port rule (issue 23, item 6)."""

from __future__ import annotations

import socket

import pytest

from notify import ssrf, webhooks
from notify.models import Delivery

REFUSED = {
    # IPv4 that is not globally reachable
    "127.0.0.1": "loopback",
    "10.0.0.1": "private",
    "172.16.0.1": "private",
    "192.168.1.1": "private",
    "169.254.169.254": "link-local (cloud metadata)",
    "100.64.0.1": "shared address space (CGN)",
    "0.0.0.0": "this network",
    "192.0.0.8": "IETF protocol assignments (192.0.0.0/24)",
    "192.0.0.9": "IETF protocol assignments (192.0.0.0/24)",
    "192.0.0.170": "IETF protocol assignments (192.0.0.0/24)",
    "192.0.2.1": "documentation",
    "192.88.99.1": "6to4 relay anycast (deprecated)",
    "198.18.0.1": "benchmarking",
    "198.51.100.1": "documentation",
    "203.0.113.1": "documentation",
    "224.0.0.1": "multicast",
    "239.255.255.250": "multicast",
    "240.0.0.1": "reserved",
    "255.255.255.255": "broadcast",
    # IPv6 that is not globally reachable
    "::1": "loopback",
    "::": "unspecified",
    "fe80::1": "link-local",
    "fc00::1": "unique local",
    "fd12:3456::1": "unique local",
    "fec0::1": "site-local (deprecated)",
    "ff02::1": "multicast",
    "ff0e::1": "multicast",
    "100::1": "discard-only",
    "2001:db8::1": "documentation",
    "3fff::1": "documentation",
    "5f00::1": "SRv6 SIDs",
    "2001:2::1": "benchmarking",
    # IPv4-mapped: the socket reaches the embedded IPv4 address
    "::ffff:127.0.0.1": "mapped loopback",
    "::ffff:10.0.0.1": "mapped private",
    "::ffff:192.0.0.8": "mapped IETF protocol assignment",
    # IPv4-compatible (deprecated, never routed): refused whatever it embeds
    "::127.0.0.1": "compatible loopback",
    "::10.0.0.1": "compatible private",
    "::8.8.8.8": "compatible (deprecated) even with a public IPv4",
    # 6to4 of a non-global IPv4
    "2002:7f00:1::1": "6to4 of 127.0.0.1",
    "2002:c0a8:101::1": "6to4 of 192.168.1.1",
    "2002:a00:1::1": "6to4 of 10.0.0.1",
    "2002:a9fe:a9fe::1": "6to4 of 169.254.169.254",
    "2002:c000:8::1": "6to4 of 192.0.0.8",
    "2002:e000:1::1": "6to4 of 224.0.0.1",
    # Teredo (2001::/32): server 65.54.227.120, client 192.0.2.45 (obfuscated); and every other one
    "2001:0:4136:e378:8000:63bf:3fff:fdd2": "Teredo of a documentation client",
    "2001:0:7f00:1:0:0:f5ff:fffe": "Teredo via server 127.0.0.1, client 10.0.0.1",
    "2001:0:808:808:0:0:fefe:fefe": "Teredo (not globally reachable) even with public IPv4s",
    # NAT64 of a non-global IPv4; the local-use prefix always
    "64:ff9b::7f00:1": "NAT64 of 127.0.0.1",
    "64:ff9b::a00:1": "NAT64 of 10.0.0.1",
    "64:ff9b::a9fe:a9fe": "NAT64 of 169.254.169.254",
    "64:ff9b::c000:8": "NAT64 of 192.0.0.8",
    "64:ff9b:1:7f00:1::": "local-use NAT64 (64:ff9b:1::/48), of 127.0.0.1",
    "64:ff9b:1:808:8::": "local-use NAT64 (64:ff9b:1::/48) even of a public IPv4",
}

ALLOWED = {
    "93.184.215.14": "a public IPv4",
    "8.8.8.8": "a public IPv4",
    "2606:4700:4700::1111": "a public IPv6",
    "2a00:1450:4001:80b::200e": "a public IPv6",
    "::ffff:8.8.8.8": "mapped public",
    "2002:808:808::1": "6to4 of a public IPv4",
    "64:ff9b::808:808": "NAT64 (well-known prefix) of a public IPv4",
}


def _literal(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def _answer(*addresses: str):
    def getaddrinfo(host, port, *args, **kwargs):
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in addresses
        ]

    return getaddrinfo


@pytest.fixture
def production(settings):
    settings.TABULA_WEBHOOK_ALLOW_PRIVATE = False


@pytest.mark.parametrize("address", sorted(REFUSED), ids=lambda a: f"{a} {REFUSED[a]}")
def test_a_receiver_that_is_not_public_is_refused(production, monkeypatch, address):
    with pytest.raises(ssrf.UnsafeUrl, match="not public"):
        ssrf.check(f"https://{_literal(address)}/hook")
    monkeypatch.setattr(ssrf.socket, "getaddrinfo", _answer(address))
    with pytest.raises(ssrf.UnsafeUrl, match="not public"):
        ssrf.check("https://hooks.example.com/hook")  # a name whose DNS answer is that address
    monkeypatch.setattr(ssrf.socket, "getaddrinfo", _answer("93.184.215.14", address))
    with pytest.raises(ssrf.UnsafeUrl, match="not public"):
        ssrf.check("https://hooks.example.com/hook")  # one bad answer among good ones is enough


@pytest.mark.parametrize("address", sorted(ALLOWED), ids=lambda a: f"{a} {ALLOWED[a]}")
def test_a_public_receiver_is_allowed_and_connected_to_as_checked(production, monkeypatch, address):
    target = ssrf.check(f"https://{_literal(address)}/hook?x=1")
    assert ssrf.ipaddress.ip_address(target.address) == ssrf.ipaddress.ip_address(address)
    monkeypatch.setattr(ssrf.socket, "getaddrinfo", _answer(address))
    target = ssrf.check("https://hooks.example.com/hook?x=1")
    assert target.url == f"https://{_literal(target.address)}:443/hook?x=1"
    assert ssrf.ipaddress.ip_address(target.address) == ssrf.ipaddress.ip_address(address)
    assert target.host == "hooks.example.com" == target.host_header


@pytest.mark.parametrize(
    ("address", "embedded"),
    [
        ("::ffff:10.0.0.1", ["10.0.0.1"]),
        ("64:ff9b::a9fe:a9fe", ["169.254.169.254"]),
        ("2002:c0a8:101::1", ["192.168.1.1"]),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", ["65.54.227.120", "192.0.2.45"]),  # server, client
        ("::10.0.0.1", []),  # refused as a whole
        ("64:ff9b:1:7f00:1::", []),  # refused as a whole
        ("2606:4700:4700::1111", []),
    ],
)
def test_the_ipv4_addresses_an_ipv6_address_leads_to(address, embedded):
    assert ssrf.embedded_ipv4(ssrf.ipaddress.IPv6Address(address)) == [ssrf.ipaddress.IPv4Address(a) for a in embedded]


def test_teredo_would_be_refused_for_its_embedded_addresses_even_if_python_called_it_global(monkeypatch):
    teredo = ssrf.ipaddress.IPv6Address("2001:0:808:808:0:0:f5ff:fffe")  # server 8.8.8.8, client 10.0.0.1
    monkeypatch.setattr(ssrf.ipaddress.IPv6Address, "is_global", property(lambda ip: True))
    assert not ssrf.public(teredo)
    assert ssrf.public(ssrf.ipaddress.IPv6Address("2001:0:808:808:0:0:fefe:fefe"))  # both public


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://hooks.example.com/x", True),
        ("https://hooks.example.com:443/x", True),
        ("https://hooks.example.com:8443/x", False),
        ("https://hooks.example.com:80/x", False),
        ("https://hooks.example.com:22/x", False),
        ("https://hooks.example.com:0/x", False),
        ("https://[2606:4700:4700::1111]:6379/x", False),
        ("http://hooks.example.com/x", False),  # http only where private receivers are allowed
        ("http://hooks.example.com:80/x", False),
    ],
)
def test_production_allows_port_443_only(production, monkeypatch, url, allowed):
    monkeypatch.setattr(ssrf.socket, "getaddrinfo", _answer("93.184.215.14"))
    if allowed:
        assert ssrf.check(url).url.startswith("https://93.184.215.14:443/")
    else:
        with pytest.raises(ssrf.UnsafeUrl):
            ssrf.check(url)


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8123/hook", "https://[::1]:9/hook", "http://[2002:7f00:1::1]:8080/hook"]
)
def test_where_private_receivers_are_allowed_any_port_and_http_are_too(settings, url):
    settings.TABULA_WEBHOOK_ALLOW_PRIVATE = True
    assert ssrf.check(url).address


@pytest.mark.parametrize("address", ["10.1.2.3", "2002:7f00:1::1", "64:ff9b::a00:1", "fec0::1", "192.0.0.8"])
def test_a_name_that_later_resolves_to_any_non_public_form_is_refused_at_delivery(
    production, make_user, monkeypatch, address
):
    """The answer is checked again at every send, and the request goes to the checked address."""
    answers = iter([_answer("93.184.215.14"), _answer(address)])
    monkeypatch.setattr(ssrf.socket, "getaddrinfo", lambda *a, **k: next(answers)(*a, **k))
    hook = webhooks.webhook_create(user=make_user("bob"), url="https://hooks.example.com/x", events=None)
    delivery = Delivery.objects.create(webhook=hook, msg_id="test_1", type="test")
    webhooks.attempt(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("refused") and delivery.last_status is None
