"""A scripted chat model that takes a fixed time per call and counts how many calls overlap: the
stand-in LLM for measuring whether the read path's assistants really run concurrently."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from langchain_core.language_models.chat_models import SimpleChatModel


class SlowScriptedChat(SimpleChatModel):
    """Replies with `reply` after `delay` seconds; `max_in_flight` is the most calls seen at once."""

    delay: float = 0.2
    reply: str = json.dumps({"relevant": False, "evidence": [], "note": "nothing relevant"})
    in_flight: int = 0
    max_in_flight: int = 0
    calls: int = 0
    lock: Any = None

    def model_post_init(self, context: Any) -> None:
        self.lock = threading.Lock()

    @property
    def _llm_type(self) -> str:
        return "slow-scripted"

    def _call(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> str:
        with self.lock:
            self.in_flight += 1
            self.calls += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            time.sleep(self.delay)
        finally:
            with self.lock:
                self.in_flight -= 1
        return self.reply
