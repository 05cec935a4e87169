from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from emem.agents.roles import RoleModels
from emem.cli.demo import example_conversation
from emem.llm.langchain_adapter import LangChainChatModel
from emem.memory import Memory


def test_llm_summaries_are_written_off_the_write_path_and_reused(tmp_path) -> None:
    chat = LangChainChatModel(
        FakeListChatModel(responses=["Alice and Ben talk about moving to Austin."]), model="fake-sum"
    )
    roles = RoleModels({"planner": None, "assistant": None, "reader": None, "summariser": chat})
    with Memory(tmp_path / "h", roles=roles) as m:
        m.add_conversation(example_conversation(), namespace="ns")
        assert m.segment_summaries("ns") == {}  # the write path wrote no summary
        m.consolidate("ns")
        report = m.last_summary_report
        assert report.written == 5 and report.failed == 0 and len(report.calls) == 5
        assert all(c.role == "summariser" and c.backend == "langchain" for c in report.calls)
        view = m.read_runtime.view("ns")
        assert {s.summary_source for s in view.segments} == {"llm"}
        m.consolidate("ns")
        assert m.last_summary_report.unchanged == 5 and m.last_summary_report.written == 0


def test_offline_summaries_are_extractive(tmp_path) -> None:
    with Memory(tmp_path / "h") as m:
        m.add_conversation(example_conversation(), namespace="ns")
        m.consolidate("ns")
        assert m.last_summary_report is None
        seg = m.read_runtime.view("ns").segments[3]
        assert seg.summary_source == "offline-extractive" and "Austin" in seg.summary
        assert all(t.text in seg.text() for t in seg.turns)
