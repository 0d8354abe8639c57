"""This machine's own names and addresses, read without sending a packet.

Used for the default ALLOWED_HOSTS, for the addresses ``serve`` prints, and for the join link
when the GM's browser came in through a loopback address (phones cannot open "localhost"),
unless the server listens on loopback only: then no address of this machine's network
answers, and the join link keeps the host the browser used.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import subprocess
from functools import cache


@cache
def local_addresses() -> tuple[str, ...]:
    """Host names and IP addresses of this machine (loopback excluded)."""
    found: list[str] = []
    hostname = socket.gethostname()
    for name in (hostname, socket.getfqdn(), f"{hostname}.local"):
        if name and name not in found and not is_loopback(name):
            found.append(name)
    for address in _interface_addresses():
        if address not in found:
            found.append(address)
    return tuple(found)


def lan_address() -> str | None:
    """The first private IPv4 address of this machine: what a phone on the same network opens."""
    for address in _interface_addresses():
        ip = ipaddress.ip_address(address.strip("[]"))
        if ip.version == 4 and ip.is_private and not ip.is_loopback and not ip.is_link_local:
            return address
    return None


# Where ``serve`` listens (its --host), for the processes that serve: the join link reads it.
# An environment variable, so that uvicorn's worker processes see it too.
LISTEN_HOST = "TABLETOP_LISTEN_HOST"
EVERY_INTERFACE = ("0.0.0.0", "::", "")


def listening_on(host: str) -> None:
    """Tell this process (and the workers it starts) which address the server listens on."""
    os.environ[LISTEN_HOST] = host


def loopback_only() -> bool:
    """Whether the server listens on a loopback address only (``serve --host 127.0.0.1``):
    no phone on the network reaches it, whatever this machine's addresses are."""
    return is_loopback(os.environ.get(LISTEN_HOST, ""))


def phone_address(host: str) -> str | None:
    """The address a phone on the network opens for a server listening on ``host``: this
    machine's network address when it listens on every interface, the one address it was
    given otherwise; None on loopback, which no phone reaches."""
    if host in EVERY_INTERFACE:
        return lan_address()
    if is_loopback(host):
        return None
    return url_host(host)


def url_host(host: str) -> str:
    """``host`` as it goes into a URL: an IPv6 address in brackets."""
    try:
        return f"[{host.strip('[]')}]" if ipaddress.ip_address(host.strip("[]")).version == 6 else host
    except ValueError:
        return host


def is_loopback(host: str) -> bool:
    host = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    host = host.strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@cache
def _interface_addresses() -> tuple[str, ...]:
    addresses: list[str] = []
    try:
        # `hostname -I` lists every configured address on Linux; it reads, it sends nothing.
        out = subprocess.run(
            ["hostname", "-I"], capture_output=True, text=True, timeout=5, check=False
        ).stdout
        addresses.extend(out.split())
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            addresses.append(str(info[4][0]))
    except OSError:
        pass
    result: list[str] = []
    for address in addresses:
        try:
            ip = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            continue
        if ip.is_loopback:
            continue
        text = f"[{ip}]" if ip.version == 6 else str(ip)
        if text not in result:
            result.append(text)
    return tuple(result)
