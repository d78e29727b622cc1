"""A loopback server speaking OpenAI's wire format: chat completions and embeddings.

Point `openai.AsyncOpenAI(base_url=fake.url, ...)` (or any OpenAI-compatible client) at it.
"""

import base64
import struct
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.concepts import concept_vector
from tests.fakes.server import FakeAPI, count_tokens


class FakeOpenAI(FakeAPI):
    """`POST /v1/chat/completions` answers with the queued replies; `POST /v1/embeddings` with
    `concept_vector` of each input, `embedding_dimension` long unless the request asks for
    `dimensions`. `url` ends in `/v1`, like OpenAI's base URL. `embedded` lists every text it
    was asked to embed, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding_dimension = 1536
        self.embedded: list[str] = []

    def reset(self) -> None:
        """Back to defaults (see `FakeAPI.reset`)."""
        super().reset()
        self.embedding_dimension = 1536
        self.embedded = []

    def app(self) -> Starlette:
        """The Starlette application serving this fake."""
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat_completions, methods=["POST"]),
                Route("/v1/embeddings", self.embeddings, methods=["POST"]),
            ]
        )

    async def chat_completions(self, request: Request) -> Response:
        body, early = await self.receive(request)
        if early is not None:
            return early
        text = self.next_reply()
        prompt_tokens = sum(count_tokens(str(message["content"])) for message in body["messages"])
        completion_tokens = count_tokens(text)
        return JSONResponse(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 1767225600,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            }
        )

    async def embeddings(self, request: Request) -> Response:
        body, early = await self.receive(request)
        if early is not None:
            return early
        inputs = [body["input"]] if isinstance(body["input"], str) else body["input"]
        self.embedded.extend(inputs)
        dimension = body.get("dimensions") or self.embedding_dimension
        base64_wanted = body.get("encoding_format") == "base64"
        data = [
            {
                "object": "embedding",
                "index": index,
                "embedding": _encoded(concept_vector(text, dimension), base64_wanted),
            }
            for index, text in enumerate(inputs)
        ]
        tokens = sum(count_tokens(text) for text in inputs)
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    def error_body(self, status: int) -> dict[str, Any]:
        return {
            "error": {
                "message": f"fake OpenAI answered {status}",
                "type": "server_error" if status >= 500 else "invalid_request_error",
                "param": None,
                "code": None,
            }
        }


def _encoded(vector: list[float], as_base64: bool) -> list[float] | str:
    """Floats, or base64 of little-endian float32 as the SDK asks for by default."""
    if not as_base64:
        return vector
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
