"""Which Host headers and bearer tokens the HTTP edge accepts, checked without a network."""

import pytest
from mcp.server.transport_security import TransportSecurityMiddleware
from pydantic import SecretStr
from starlette.requests import Request

from cortex_mcp.config import Settings
from cortex_mcp.remote import UnsafeBind, check_bind, host_patterns, transport_security


def request_for(host: str) -> Request:
    headers = [(b"host", host.encode())]
    return Request({"type": "http", "method": "GET", "path": "/mcp", "headers": headers})


async def accepts_host(settings: Settings, host: str) -> bool:
    middleware = TransportSecurityMiddleware(transport_security(settings))
    return await middleware.validate_request(request_for(host)) is None


async def test_an_ipv6_bind_address_is_accepted_in_its_bracketed_host_form() -> None:
    settings = Settings(host="fd00::2", auth_token=SecretStr("t"))

    assert await accepts_host(settings, "[fd00::2]:21100")
    assert not await accepts_host(settings, "[fd00::3]:21100")


async def test_loopback_names_are_accepted_and_foreign_names_refused() -> None:
    settings = Settings()

    for host in ["127.0.0.1:21100", "localhost:21100", "[::1]:21100"]:
        assert await accepts_host(settings, host), host
    for host in ["evil.example:21100", "127.0.0.1.evil.example:21100", "localhost.evil:80"]:
        assert not await accepts_host(settings, host), host


async def test_an_allowed_host_without_a_port_accepts_any_port() -> None:
    settings = Settings(allowed_hosts=["cortex.lan", "fd00::9"])

    assert await accepts_host(settings, "cortex.lan:21100")
    assert await accepts_host(settings, "cortex.lan")
    assert await accepts_host(settings, "[fd00::9]:443")
    assert not await accepts_host(settings, "cortex.lan.evil:21100")


async def test_an_allowed_host_with_a_port_accepts_only_that_port() -> None:
    settings = Settings(allowed_hosts=["cortex.lan:8080"])

    assert await accepts_host(settings, "cortex.lan:8080")
    assert not await accepts_host(settings, "cortex.lan:8081")


def test_host_patterns_keep_explicit_ports_and_bracket_ipv6() -> None:
    assert host_patterns("cortex.lan:*") == ["cortex.lan:*"]
    assert host_patterns("cortex.lan:8080") == ["cortex.lan:8080"]
    assert host_patterns("[fd00::2]:8080") == ["[fd00::2]:8080"]
    assert host_patterns("fd00::2") == ["[fd00::2]", "[fd00::2]:*"]


def test_a_wildcard_bind_adds_no_host_of_its_own() -> None:
    security = transport_security(Settings(host="0.0.0.0", auth_token=SecretStr("t")))

    assert security.allowed_hosts == ["127.0.0.1:*", "localhost:*", "[::1]:*"]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.2", "cortex.lan"])
def test_binding_beyond_loopback_needs_a_token(host: str) -> None:
    with pytest.raises(UnsafeBind, match="CORTEX_AUTH_TOKEN"):
        check_bind(Settings(host=host))
    check_bind(Settings(host=host, auth_token=SecretStr("t" * 32)))


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
def test_loopback_binds_need_no_token(host: str) -> None:
    check_bind(Settings(host=host))


def test_a_blank_token_is_refused_even_on_loopback() -> None:
    with pytest.raises(UnsafeBind, match="blank"):
        check_bind(Settings(auth_token=SecretStr(" ")))
