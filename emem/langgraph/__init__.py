"""emem inside LangGraph: a `BaseStore`, LangChain tools, a retriever and prebuilt nodes.

from emem.langgraph import EmemStore
graph = builder.compile(store=EmemStore(Memory(), namespace="priya"))
"""

from emem.langgraph.store import EmemStore

__all__ = ["EmemStore"]
