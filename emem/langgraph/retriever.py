"""`EmemRetriever`: emem's hybrid search as a LangChain `BaseRetriever` (for RAG chains)."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict


def hit_document(hit: Any) -> Document:
    """A hit as a Document: the turn's text, with its provenance (and metadata) as metadata."""
    meta: dict[str, Any] = {
        "conversation_id": hit.conversation_id,
        "session_id": hit.session_id,
        "turn_id": hit.turn_id,
        "speaker": hit.speaker,
        "time": hit.time.isoformat(),
        "score": hit.score,
    }
    if hit.metadata:
        meta["metadata"] = dict(hit.metadata)
    text = f"{hit.text} [shares {hit.image_caption}]" if hit.image_caption else hit.text
    return Document(
        page_content=f"{hit.speaker}: {text}", metadata=meta, id=f"{hit.conversation_id}/{hit.turn_id}"
    )


class EmemRetriever(BaseRetriever):
    """Retrieve turns from one namespace of an `emem.Memory`.

    Attributes:
        memory: the Memory.
        namespace: the tenant searched.
        k: how many documents.
        filter: a `TurnFilter` or dict of its fields (conversation_id, speaker, since, until, metadata).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any
    namespace: str
    k: int = 5
    filter: Any = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [
            hit_document(h)
            for h in self.memory.search(query, self.k, namespace=self.namespace, filter=self.filter)
        ]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        hits = await self.memory.asearch(query, self.k, namespace=self.namespace, filter=self.filter)
        return [hit_document(h) for h in hits]
