"""A minimal OpenAI-compatible chat-completions client (Ollama, llama.cpp server, vLLM, hosted APIs).

Standard library only (``urllib``). Configuration comes from the environment
(``CRAFTBT_LLM_URL`` — the base URL including ``/v1`` —, ``CRAFTBT_LLM_MODEL``,
``CRAFTBT_LLM_KEY``, ``CRAFTBT_LLM_TIMEOUT_S``) or is passed in. Failures are
:class:`LlmError` with a stable code: ``timeout``, ``unreachable``,
``http_<status>``, ``bad_response``.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from craftbt.core.errors import CraftbtError, ErrorCode


class LlmError(Exception):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class LlmConfig:
    url: str
    model: str
    key: str | None = None
    timeout_s: float = 60.0

    @classmethod
    def from_env(cls) -> LlmConfig | None:
        """The configuration in the environment, None when it sets none; a setting that cannot be used is a
        configuration error naming it (exit 1), never a crash at the first request."""
        url = os.environ.get("CRAFTBT_LLM_URL")
        model = os.environ.get("CRAFTBT_LLM_MODEL")
        if not url or not model:
            return None
        parts = urllib.parse.urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise _setting("CRAFTBT_LLM_URL", url, "an http(s) base URL including /v1, e.g. http://127.0.0.1:11434/v1")
        raw_timeout = os.environ.get("CRAFTBT_LLM_TIMEOUT_S") or "60"
        try:
            timeout = float(raw_timeout)
        except ValueError:
            timeout = float("nan")
        if not 0 < timeout < float("inf"):
            raise _setting("CRAFTBT_LLM_TIMEOUT_S", raw_timeout, "a positive number of seconds")
        return cls(url=url.strip().rstrip("/"), model=model, key=os.environ.get("CRAFTBT_LLM_KEY") or None,
                   timeout_s=timeout)


def _setting(name: str, value: str, expected: str) -> CraftbtError:
    return CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"{name}={value!r} cannot be used", expected=expected)


class ChatClient:
    def __init__(self, config: LlmConfig) -> None:
        self.config = config

    def complete(self, messages: list[dict[str, str]], response_format: dict[str, Any] | None = None) -> str:
        """The first choice's message content."""
        body: dict[str, Any] = {"model": self.config.model, "messages": messages, "temperature": 0}
        if response_format is not None:
            body["response_format"] = response_format
        headers = {"Content-Type": "application/json"}
        if self.config.key:
            headers["Authorization"] = f"Bearer {self.config.key}"
        request = urllib.request.Request(
            self.config.url + "/chat/completions", data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.config.timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as err:
            detail = err.read().decode("utf-8", "replace")[:500]
            raise LlmError(f"http_{err.code}", detail) from None
        except TimeoutError as err:
            raise LlmError("timeout", f"no answer within {self.config.timeout_s:.0f} s") from err
        except urllib.error.URLError as err:
            if isinstance(err.reason, TimeoutError | socket.timeout):
                raise LlmError("timeout", f"no answer within {self.config.timeout_s:.0f} s") from None
            raise LlmError("unreachable", f"{self.config.url}: {err.reason}") from None
        except OSError as err:
            raise LlmError("unreachable", f"{self.config.url}: {err}") from None
        try:
            data = json.loads(raw)
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as err:
            raise LlmError("bad_response", f"not a chat completion: {raw[:200]!r}") from err
        if not isinstance(content, str):
            raise LlmError("bad_response", "message content is not text")
        return content
