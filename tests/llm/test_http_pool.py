"""The transport's connection pool on a real loopback server: connections kept alive and capped, answers as servers frame
them (length, chunked, close), servers that drop connections, oversized answers, and proxies left to aiohttp."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import ssl
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from proactive_bench.llm.faults import MalformedBodyError
from proactive_bench.llm.http_pool import PostPool
from proactive_bench.llm.transport import ChatTransport

ANSWER = json.dumps({"choices": [{"message": {"role": "assistant", "content": "ok"}}]}).encode()
CAP = 1 << 20


def framed(body: bytes = ANSWER, close: bool = False, status: int = 200) -> bytes:
    """An answer with a Content-Length (and ``Connection: close``)."""
    extra = "Connection: close\r\n" if close else ""
    return f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\n{extra}Content-Length: {len(body)}\r\n\r\n".encode() + body


def chunked(body: bytes = ANSWER) -> bytes:
    half = len(body) // 2
    parts = [body[:half], body[half:]]
    return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


@dataclass
class Server:
    """Reads each request (head and Content-Length body), answers with ``answer(n)``; counts connections and requests."""

    answer: Callable[[int], bytes | None] = lambda n: framed()
    delay: float = 0.0
    connections: int = 0
    open_now: int = 0
    most_open: int = 0
    request_lines: list[str] = field(default_factory=list)
    heads: list[str] = field(default_factory=list)
    url: str = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_now += 1
        self.most_open = max(self.most_open, self.open_now)
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
                self.heads.append(head)
                self.request_lines.append(head.split("\r\n", 1)[0])
                length = next(int(line.split(":", 1)[1]) for line in head.split("\r\n") if line.lower().startswith("content-length:"))
                await reader.readexactly(length)
                await asyncio.sleep(self.delay)
                reply = self.answer(len(self.request_lines))
                if reply is None:  # drop the connection unanswered
                    break
                writer.write(reply)
                await writer.drain()
                if b"Connection: close" in reply.split(b"\r\n\r\n", 1)[0]:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.open_now -= 1
            writer.close()


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    serving = Server()
    listening = await asyncio.start_server(serving.handle, "127.0.0.1", 0)
    serving.url = f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}/v1/chat/completions"
    async with listening:
        yield serving


async def post(pool: PostPool, server: Server, cap: int = CAP) -> tuple[int, bytes]:
    status, _headers, body = await pool.post(server.url, {"Content-Type": "application/json"}, b'{"a": 1}', 5.0, cap)
    return status, body


async def test_a_connection_is_kept_alive_across_requests(server: Server) -> None:
    pool = PostPool(8)
    assert [await post(pool, server) for _ in range(5)] == [(200, ANSWER)] * 5
    assert server.connections == 1
    assert server.request_lines[0] == "POST /v1/chat/completions HTTP/1.1"
    assert "Host: 127.0.0.1:" in server.heads[0] and "Content-Length: 8" in server.heads[0]
    pool.close()


async def test_answers_framed_by_chunks_or_by_closing_are_read_whole(server: Server) -> None:
    pool = PostPool(8)
    server.answer = lambda n: chunked() if n % 2 else framed(close=True)
    assert [await post(pool, server) for _ in range(4)] == [(200, ANSWER)] * 4
    assert server.connections == 2  # a new connection after each answer that closed its own
    pool.close()


async def test_connections_to_a_host_are_capped_and_the_rest_wait(server: Server) -> None:
    pool = PostPool(2)
    server.delay = 0.05
    assert await asyncio.gather(*[post(pool, server) for _ in range(6)]) == [(200, ANSWER)] * 6
    assert server.most_open == 2
    pool.close()


async def test_a_connection_the_server_closed_while_idle_is_not_reused(server: Server) -> None:
    pool = PostPool(8)
    server.answer = lambda n: framed(close=True)
    await post(pool, server)
    server.answer = lambda n: framed()
    assert await post(pool, server) == (200, ANSWER)
    assert server.connections == 2


async def test_a_connection_dropped_before_the_answer_is_a_client_error_and_not_reused(server: Server) -> None:
    pool = PostPool(8)
    server.answer = lambda n: None if n == 2 else framed()
    await post(pool, server)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await post(pool, server)
    assert await post(pool, server) == (200, ANSWER)
    assert server.connections == 2


async def test_an_answer_cut_short_is_a_payload_error(server: Server) -> None:
    pool = PostPool(8)
    server.answer = lambda n: framed()[:-5] + b"" if n == 1 else framed()
    task = asyncio.create_task(post(pool, server))
    await asyncio.sleep(0.1)
    assert not task.done()  # waits for the rest of the body
    pool.close()
    with pytest.raises(aiohttp.ClientPayloadError):
        await task


async def test_answers_over_the_cap_are_cut_whether_announced_or_sent(server: Server) -> None:
    pool = PostPool(8)
    big = b"x" * 5000
    server.answer = lambda n: framed(big) if n == 1 else chunked(big)
    with pytest.raises(MalformedBodyError, match="announced a 5000-byte body"):
        await post(pool, server, cap=1000)
    with pytest.raises(MalformedBodyError, match="over the 1000-byte cap"):
        await post(pool, server, cap=1000)
    assert await post(pool, server, cap=5000) == (200, big)  # a new connection: the cut ones were closed
    assert server.connections == 3


async def test_a_slow_answer_times_out_and_its_connection_is_closed(server: Server) -> None:
    pool = PostPool(8)
    server.delay = 1.0
    with pytest.raises(TimeoutError):
        await pool.post(server.url, {}, b"{}", 0.1, CAP)
    assert not pool._open


async def test_a_header_with_a_line_break_is_refused(server: Server) -> None:
    with pytest.raises(ValueError, match="line break"):
        await PostPool(8).post(server.url, {"Authorization": "Bearer x\r\nX-Injected: 1"}, b"{}", 5.0, CAP)
    assert server.connections == 0


async def test_a_closed_port_is_a_connection_error() -> None:
    with pytest.raises(aiohttp.ClientConnectionError, match="Cannot connect to host 127.0.0.1:9"):
        await PostPool(8).post("http://127.0.0.1:9/v1/chat/completions", {}, b"{}", 5.0, CAP)


async def test_with_a_proxy_set_requests_go_through_aiohttp_to_the_proxy(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = server.url.rsplit("/v1", 1)[0]
    monkeypatch.setenv("HTTP_PROXY", proxy)
    monkeypatch.setenv("NO_PROXY", "")
    async with ChatTransport() as transport:
        answer = await transport.complete("http://models.example/v1/chat/completions", {}, {"a": 1}, 5.0, 0)
    assert answer == json.loads(ANSWER)
    assert server.request_lines == ["POST http://models.example/v1/chat/completions HTTP/1.1"]  # the proxy's form of the request


async def test_an_answer_ended_by_closing_its_connection_and_one_after_an_interim_answer_are_read(server: Server) -> None:
    pool = PostPool(8)
    server.answer = lambda n: (
        b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + ANSWER if n == 1 else b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + framed()
    )
    assert await post(pool, server) == (200, ANSWER)
    assert await post(pool, server) == (200, ANSWER)
    assert server.connections == 2


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key (both PEM files)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return cert_file, key_file


async def test_https_goes_over_tls_verified_against_the_default_trust(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cert_file, key_file = self_signed(tmp_path)
    serving = Server()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    listening = await asyncio.start_server(serving.handle, "127.0.0.1", 0, ssl=context)
    url = f"https://127.0.0.1:{listening.sockets[0].getsockname()[1]}/v1/chat/completions"
    async with listening:
        with pytest.raises(aiohttp.ClientConnectionError, match="ssl:default"):  # not trusted: refused
            await PostPool(8).post(url, {}, b"{}", 5.0, CAP)
        monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))  # what the default context trusts
        pool = PostPool(8)
        assert [(await pool.post(url, {}, b"{}", 5.0, CAP))[2] for _ in range(2)] == [ANSWER] * 2
        pool.close()
        while serving.open_now:  # the server's side sees the close (after TLS's own closing)
            await asyncio.sleep(0.01)
    assert serving.connections == 1  # one connection kept alive (the refused handshake never reached the handler)


def compressed(body: bytes, encoding: str) -> bytes:
    """An answer whose body the server compressed (``gzip`` or ``deflate``) though it was asked not to."""
    packed = zlib.compress(body, wbits=16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS)
    return f"HTTP/1.1 200 OK\r\nContent-Encoding: {encoding}\r\nContent-Length: {len(packed)}\r\n\r\n".encode() + packed


async def test_a_compressed_answer_is_decoded_within_the_cap_and_others_are_malformed(server: Server) -> None:
    """Asked for no compression, a server may compress anyway: gzip and deflate are decoded, not beyond the cap (a small
    body that inflates past it is cut), and an encoding pbench does not decode is a malformed answer, never passed on."""
    pool = PostPool(8)
    replies = iter([compressed(ANSWER, "gzip"), compressed(ANSWER, "deflate"), compressed(b"x" * 4096, "gzip")])
    server.answer = lambda n: next(replies)
    assert await post(pool, server) == (200, ANSWER)
    assert "Accept-Encoding: identity" in server.heads[0]
    assert await post(pool, server) == (200, ANSWER)
    with pytest.raises(MalformedBodyError, match="over the 1024-byte cap once decoded"):
        await post(pool, server, cap=1024)
    server.answer = lambda n: framed(b"\x1f\x8b garbage").replace(b"Content-Type", b"Content-Encoding: gzip\r\nContent-Type")
    with pytest.raises(MalformedBodyError, match="does not decode"):
        await post(pool, server)
    server.answer = lambda n: framed(ANSWER).replace(b"Content-Type", b"Content-Encoding: br\r\nContent-Type")
    with pytest.raises(MalformedBodyError, match="content encoding 'br'"):
        await post(pool, server)
    pool.close()
