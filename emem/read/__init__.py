"""The read path by stage: each module holds one stage's graph nodes, module-level functions that
receive their dependencies (`context.ReadRuntime`) as LangGraph's run context. The graph that
wires them is `emem.agents.master`; the agents' own rules (planner, assistant, reader,
aggregation) stay in `emem.agents`.

    plan.py        plan_node, after_plan         what the question needs; fast or deep
    retrieve.py    fast_retrieve                 fast mode: hybrid retrieval + ledger facts
    route.py       route, fan_out, hop           deep mode: which segments, one assistant each
    assistants.py  assistant                     deep mode: read one segment, quote evidence
    aggregate.py   aggregate                     currentness, closures, packing under the budget
    packing.py     pack                          the pure packer
    read.py        read, build_answer            the reader; the Answer
    context.py     ReadRuntime                   what the nodes share (views, caches, roles)
"""
