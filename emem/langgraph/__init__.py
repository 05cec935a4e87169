"""emem inside LangGraph: a `BaseStore`, LangChain tools, a retriever and prebuilt nodes.

from emem.langgraph import EmemStore, memory_tools, recall_node, remember_node
graph = builder.compile(store=EmemStore(Memory(), namespace="priya"))
"""

from emem.langgraph.nodes import MemoryState, memory_prompt, recall_node, remember_node
from emem.langgraph.retriever import EmemRetriever
from emem.langgraph.serde import CHECKPOINT_TYPES, AskState, checkpoint_serializer
from emem.langgraph.store import EmemStore
from emem.langgraph.tools import memory_tools

__all__ = [
    "CHECKPOINT_TYPES",
    "AskState",
    "EmemRetriever",
    "EmemStore",
    "MemoryState",
    "checkpoint_serializer",
    "memory_prompt",
    "memory_tools",
    "recall_node",
    "remember_node",
]
