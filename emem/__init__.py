"""emem: auditable long-term memory for LLM agents.

`Memory` is the public contract; everything else is reachable from it."""

from emem.memory import Memory

__all__ = ["Memory"]
__version__ = "0.1.0"
