"""A loopback server speaking Anthropic's wire format: the Messages API.

Point `anthropic.AsyncAnthropic(base_url=fake.url, ...)` at it.
"""

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.server import FakeAPI, RecordedRequest, count_tokens


def sent_key(request: RecordedRequest) -> str | None:
    """The API key the SDK sent: anthropic 2.x sends it as a bearer token, 1.x as `x-api-key`."""
    bearer = request.headers.get("authorization", "")
    return bearer.removeprefix("Bearer ") if bearer else request.headers.get("x-api-key")


_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}


class FakeAnthropic(FakeAPI):
    """`POST /v1/messages` answers with the queued replies as one text block. `url` is the root,
    like Anthropic's base URL (the SDK adds `/v1/messages`)."""

    def app(self) -> Starlette:
        """The Starlette application serving this fake."""
        return Starlette(routes=[Route("/v1/messages", self.messages, methods=["POST"])])

    async def messages(self, request: Request) -> Response:
        body, early = await self.receive(request)
        if early is not None:
            return early
        text = self.next_reply()
        input_tokens = count_tokens(str(body.get("system", ""))) + sum(
            count_tokens(str(message["content"])) for message in body["messages"]
        )
        return JSONResponse(
            {
                "id": f"msg_{len(self.requests)}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": input_tokens, "output_tokens": count_tokens(text)},
            }
        )

    def error_body(self, status: int) -> dict[str, Any]:
        error_type = _ERROR_TYPES.get(status, "api_error" if status != 529 else "overloaded_error")
        return {
            "type": "error",
            "error": {"type": error_type, "message": f"fake Anthropic answered {status}"},
        }
