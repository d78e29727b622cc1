"""Paid APIs faked at the wire: loopback servers that the real openai/anthropic SDKs talk to.

Fixtures (import them into a conftest.py to use them):
- `fake_openai`: a `FakeOpenAI`, `url` ending in `/v1`;
- `fake_anthropic`: a `FakeAnthropic`, `url` the server root.
Each server starts once per session and is reset before and after every test. A test queues
replies (`fake.replies.append('{"memories": []}')`), flips switches (`status = 500`,
`latency_s = 30`, `malformed = True`, `embedding_dimension = 8`) and asserts on
`fake.requests` (what the SDK sent). Embeddings follow `tests.fakes.concepts`.
"""

from collections.abc import Iterator

import pytest

from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.openai import FakeOpenAI
from tests.fakes.server import FakeAPI, RecordedRequest, serve

__all__ = [
    "FakeAPI",
    "FakeAnthropic",
    "FakeOpenAI",
    "RecordedRequest",
    "fake_anthropic",
    "fake_anthropic_server",
    "fake_openai",
    "fake_openai_server",
    "serve",
]


@pytest.fixture(scope="session")
def fake_openai_server() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    with serve(fake.app()) as root:
        fake.url = f"{root}/v1"
        yield fake
        fake.reset()  # release any request still waiting so the server can stop


@pytest.fixture(scope="session")
def fake_anthropic_server() -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic()
    with serve(fake.app()) as root:
        fake.url = root
        yield fake
        fake.reset()


@pytest.fixture
def fake_openai(fake_openai_server: FakeOpenAI) -> Iterator[FakeOpenAI]:
    fake_openai_server.reset()
    yield fake_openai_server
    fake_openai_server.reset()


@pytest.fixture
def fake_anthropic(fake_anthropic_server: FakeAnthropic) -> Iterator[FakeAnthropic]:
    fake_anthropic_server.reset()
    yield fake_anthropic_server
    fake_anthropic_server.reset()
