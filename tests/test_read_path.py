"""The read path end to end with the offline roles and with scripted LangChain fake chat models."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.language_models.chat_models import SimpleChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from emem.agents.assistant import llm_assistant, verify_quote
from emem.agents.planner import classify_operation, offline_plan
from emem.agents.roles import RoleModels
from emem.answer import Closure, Operation, Plan
from emem.cli.demo import example_conversation
from emem.llm.langchain_adapter import LangChainChatModel
from emem.memory import Memory
from emem.read.packing import pack
from emem.segments import build_segments

NS = "demo"


pytestmark = pytest.mark.usefixtures("each_backend")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, module_backend: str):
    with Memory(tmp_path_factory.mktemp("home"), backend=module_backend) as m:
        m.add_conversation(example_conversation(), namespace=NS)
        m.consolidate(NS)
        yield m


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("Where does Alice live now?", Operation.FACT),
        ("How many pets do they have?", Operation.COUNT),
        ("What pets do Alice and Ben have?", Operation.LIST),
        ("Which cities has Jon visited?", Operation.LIST),
        ("When did Alice move to Austin?", Operation.TEMPORAL_LOOKUP),
        ("In which year did they meet?", Operation.TEMPORAL_LOOKUP),
        ("How long after the trip did she move?", Operation.TEMPORAL_ARITHMETIC),
        ("How many weeks passed between the race and the wedding?", Operation.TEMPORAL_ARITHMETIC),
        ("How many days did the trip last?", Operation.TEMPORAL_ARITHMETIC),
        # a rate is a count said outright, not time elapsed
        ("How many days a week does Mia go to nursery?", Operation.COUNT),
        ("How many hours per week do I work at the café?", Operation.COUNT),
    ],
)
def test_planner_classifies_operations(question: str, operation: Operation) -> None:
    assert classify_operation(question) == operation


def test_plan_names_entities_predicates_and_time() -> None:
    from datetime import UTC, datetime

    plan = offline_plan(
        "Where did Alice live in February 2023?", ["Alice", "Ben"], datetime(2023, 10, 1, tzinfo=UTC)
    )
    assert plan.entities == ["Alice"] and "lives_in" in plan.predicates
    assert plan.time_from == datetime(2023, 2, 1, tzinfo=UTC) and plan.mode == "deep"


@pytest.mark.parametrize(
    ("question", "expected", "operation"),
    [
        ("Where does Ben work now?", "Riverside Clinic", Operation.FACT),
        ("What pets do Alice and Ben have?", "a dog named Max, a cat named Luna", Operation.LIST),
        ("How many pets do Alice and Ben have?", "2", Operation.COUNT),
        ("When did Alice run a half marathon?", "29 September 2023", Operation.TEMPORAL_LOOKUP),
        (
            "How many months after Ben's trip to Japan did Alice move to Austin?",
            "3 months",
            Operation.TEMPORAL_ARITHMETIC,
        ),
    ],
)
def test_each_operation_end_to_end_offline(
    demo: Memory, question: str, expected: str, operation: Operation
) -> None:
    a = demo.ask(question, namespace=NS, mode="deep")
    assert a.operation == operation and a.mode_used == "deep" and a.status == "answered"
    assert a.answer == expected
    assert a.offline and a.evidence and all(e.text for e in a.evidence)


def test_temporal_arithmetic_packs_both_endpoints(demo: Memory) -> None:
    a = demo.ask(
        "How many months after Ben's trip to Japan did Alice move to Austin?", namespace=NS, mode="deep"
    )
    ids = {e.turn_id for e in a.evidence}
    assert {"S3:1", "S4:1"} <= ids


def test_stale_value_trap(demo: Memory) -> None:
    """'I live in Denver and I love Denver' is closer to the question than 'we finally settled in
    Austin', but the ledger says Austin is current; Denver is shown as history."""
    hits = demo.search("Where does Alice live?", namespace=NS, k=3)
    assert hits[0].turn_id != "S4:1" or hits[1].turn_id == "S1:3"  # similarity alone proposes Denver too
    a = demo.ask("Where does Alice live now?", namespace=NS, mode="deep")
    assert a.answer == "Austin"
    roles = {e.turn_id: e.role for e in a.evidence}
    assert roles["S4:1"] == "current-value" and roles["S1:3"] == "superseded-value"
    assert "history" in a.context and "Denver" in a.context
    past = demo.ask("Where did Alice live in February 2023?", namespace=NS, mode="deep")
    assert past.answer == "Denver"


def test_conflict_is_reported_not_picked(tmp_path) -> None:
    with Memory(tmp_path / "h") as m:
        m.add_conversation(example_conversation(), namespace=NS)
        m.assert_fact(
            "Ben", "lives_in", "Boston", "2023-03-01T00:00:00Z", namespace=NS, known_at="2023-03-02T00:00:00Z"
        )
        m.assert_fact(
            "Ben",
            "lives_in",
            "Chicago",
            "2023-03-01T00:00:00Z",
            namespace=NS,
            known_at="2023-03-03T00:00:00Z",
        )
        a = m.ask("Where does Ben live?", namespace=NS, mode="deep")
        assert a.status == "conflict"
        assert "Boston" in a.answer and "Chicago" in a.answer
        assert a.facts and a.facts[0].status == "conflict"


def test_abstains_on_unanswerable(demo: Memory) -> None:
    for mode in ("fast", "deep"):
        a = demo.ask("What is Ben's favourite football team?", namespace=NS, mode=mode)
        assert a.status == "abstained" and a.answer.startswith("I don't know")


def test_deep_abstains_on_its_packed_evidence_not_by_dropping_it(demo: Memory) -> None:
    # Nothing reaches the relevance floor: deep still packs what memory holds nearest the
    # question, all as context (a model reader may read it), and the offline reader abstains.
    a = demo.ask("What is the airspeed of an unladen swallow?", namespace=NS, mode="deep")
    assert a.status == "abstained"
    assert a.evidence and {e.role for e in a.evidence} == {"context"}


@pytest.mark.parametrize("budget", [60, 120, 300, 2000])
def test_budget_never_exceeded_and_closures_whole(demo: Memory, budget: int) -> None:
    for q in [
        "What pets do Alice and Ben have?",
        "Where does Alice live now?",
        "What did Alice make in pottery class?",
    ]:
        for mode in ("fast", "deep"):
            a = demo.ask(q, namespace=NS, mode=mode, budget=budget)
            assert a.usage.context_tokens <= budget
            # a fact closure is all or nothing: its current value never appears without its header
            if any(e.role == "current-value" for e in a.evidence):
                assert "LEDGER" in a.context


closure_st = st.builds(
    lambda key, group, prio, tokens, header: Closure(
        key=key,
        group=group,
        priority=prio,
        lines=[key],
        tokens=tokens,
        header=header,
        header_tokens=0 if header is None else len(header),
    ),
    st.text("abcdef", min_size=1, max_size=4),
    st.sampled_from(["g1", "g2", "g3", "solo-a", "solo-b"]),
    st.floats(0, 10),
    st.integers(1, 400),
    st.sampled_from([None, "[session S1]", "[session S22 | long]"]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(closure_st, max_size=12), st.integers(0, 1200))
def test_pack_is_within_budget_and_never_splits_groups(closures: list[Closure], budget: int) -> None:
    result = pack(closures, budget)
    headers = {c.header for c in result.closures if c.header is not None}
    # A shared header is paid once, whatever number of packed closures it heads.
    assert result.tokens == sum(c.tokens for c in result.closures) + sum(len(h) for h in headers) <= budget
    chosen_groups = {c.group for c in result.closures}
    for g in chosen_groups:
        assert [c.key for c in closures if c.group == g] == [c.key for c in result.closures if c.group == g]
    assert chosen_groups.isdisjoint(result.dropped_groups)
    lines = result.lines()
    # Every header is said once, each closure's lines come right under their own header.
    assert sorted(h for h in lines if h in headers) == sorted(headers)
    assert len(lines) == len(headers) + sum(len(c.lines) for c in result.closures)
    current = None
    for line in lines:
        if line in headers:
            current = line
        else:
            owners = [c for c in result.closures if line in c.lines]
            assert any(c.header is None or c.header == current for c in owners)


def test_verbatim_quotes_are_enforced(demo: Memory) -> None:
    view = demo.read_runtime.view(NS)
    segment = next(s for s in build_segments(view.turns) if s.session_id == "S4")
    turn = segment.turns[0]
    assert verify_quote(turn, "we finally settled in Austin")
    assert not verify_quote(turn, "we moved to Austin")  # a paraphrase
    reply = json.dumps(
        {
            "relevant": True,
            "evidence": [
                {"turn_id": "S4:1", "quote": "we finally settled in Austin last week"},
                {"turn_id": "S4:1", "quote": "Alice moved to Austin in July"},
                {"turn_id": "S9:9", "quote": "invented turn"},
            ],
            "note": "moved",
        }
    )
    chat = LangChainChatModel(FakeListChatModel(responses=[reply]), model="fake-assistant")
    report, call = llm_assistant(segment, "Where does Alice live?", Plan(), chat)
    assert [e.quote for e in report.evidence] == ["we finally settled in Austin last week"]
    assert len(report.rejected_quotes) == 2
    assert call.backend == "langchain" and call.prompt_tokens > 0 and call.completion_tokens > 0


def test_wrong_turn_id_is_corrected_only_for_a_quote_found_in_exactly_one_turn(demo: Memory) -> None:
    """Small models garble turn ids ("2" for "S4:2") while copying words exactly: the words decide
    which turn a quote comes from, and a quote that two turns share cannot be placed."""
    view = demo.read_runtime.view(NS)
    segment = next(s for s in build_segments(view.turns) if s.session_id == "S4")
    first, second = segment.turns[0], segment.turns[1]
    shared = segment.model_copy(
        update={"turns": [*segment.turns, second.model_copy(update={"turn_id": "S4:99"})]}
    )
    unique_words = first.text.split(".")[0]
    reply = json.dumps(
        {
            "relevant": True,
            "evidence": [
                {"turn_id": "1", "quote": unique_words},  # right words, garbled id
                {"turn_id": "2", "quote": second.text},  # words held by two turns now
            ],
        }
    )
    chat = LangChainChatModel(FakeListChatModel(responses=[reply]), model="fake-assistant")
    report, _ = llm_assistant(shared, "Where does Alice live?", Plan(), chat)
    assert [(e.turn_id, e.quote) for e in report.evidence] == [(first.turn_id, unique_words)]
    assert report.reattributed_quotes == [f"1 -> {first.turn_id}"]
    assert report.rejected_quotes == [f"2: {second.text[:80]}"]


class SegmentAwareFake(SimpleChatModel):
    """Assistants run in parallel, so a scripted list would reach them in any order: reply by
    what the segment holds instead."""

    @property
    def _llm_type(self) -> str:
        return "segment-aware-fake"

    def _call(self, messages, stop=None, run_manager=None, **kwargs) -> str:
        # The turn's id opens its line: "[S5:1]", or "[S5:1 | date]" when its day is new.
        if any(f"[S5:1{end}" in str(messages[-1].content) for end in ("]", " ")):
            return json.dumps(
                {
                    "relevant": True,
                    "evidence": [{"turn_id": "S5:1", "quote": "I work at Riverside Clinic now"}],
                }
            )
        return json.dumps({"relevant": False, "evidence": [], "note": "nothing relevant"})


def test_scripted_llm_roles_and_token_accounting(tmp_path) -> None:
    planner = FakeListChatModel(
        responses=[
            json.dumps(
                {
                    "operation": "FACT",
                    "entities": ["Ben"],
                    "predicates": ["works_at"],
                    "needs_current": True,
                    "keywords": ["work"],
                }
            )
        ]
    )
    assistant = SegmentAwareFake()
    reader = FakeListChatModel(responses=["Riverside Clinic"])
    roles = RoleModels(
        {
            "planner": LangChainChatModel(planner, model="fake-planner"),
            "assistant": LangChainChatModel(assistant, model="fake-assistant"),
            "reader": LangChainChatModel(reader, model="fake-reader"),
            "summariser": None,
        }
    )
    with Memory(tmp_path / "h", roles=roles) as m:
        m.add_conversation(example_conversation(), namespace=NS)
        a = m.ask("Where does Ben work now?", namespace=NS, mode="deep")
    assert a.answer == "Riverside Clinic" and a.status == "answered" and not a.offline
    by_role = a.usage.by_role
    assert by_role["planner"].llm_calls == 1 and by_role["reader"].llm_calls == 1
    assert by_role["assistant"].llm_calls == len(a.activated_segments) == 5
    assert {r: u.models for r, u in by_role.items()} == {
        "planner": ["fake-planner"],
        "assistant": ["fake-assistant"],
        "reader": ["fake-reader"],
    }
    assert a.usage.llm_calls == sum(r.llm_calls for r in by_role.values())
    assert a.usage.prompt_tokens == sum(r.prompt_tokens for r in by_role.values()) > 0
    assert a.usage.context_tokens > 0 and set(a.prompt_hashes) == {
        "prompt-set",
        "planner",
        "assistant",
        "reader",
    }
    assert any(e.turn_id == "S5:1" and e.quote == "I work at Riverside Clinic now" for e in a.evidence)


def test_fast_mode_has_no_planning_or_assistants(demo: Memory) -> None:
    a = demo.ask("What did Alice make in pottery class?", namespace=NS, mode="fast")
    assert a.mode_used == "fast" and not a.activated_segments
    assert a.usage.by_role["planner"].models == ["offline-rules"]  # labelled, never passed off as a model's
    assert set(a.usage.by_role) == {"planner", "reader"}  # the planner entry is the free offline classifier
    assert a.usage.by_role["planner"].llm_calls == 1 and a.offline


def test_auto_mode_routes_and_says_why(demo: Memory) -> None:
    direct = demo.ask("What did Alice make in pottery class?", namespace=NS, mode="auto")
    listing = demo.ask("What pets do Alice and Ben have?", namespace=NS, mode="auto")
    assert direct.mode_used == "fast" and "fast path" in direct.mode_reason
    assert listing.mode_used == "deep" and listing.activated_segments
    assert all(s.pathways for s in listing.activated_segments)


def test_as_of_hides_later_turns(demo: Memory) -> None:
    a = demo.ask("Where does Alice live?", namespace=NS, mode="deep", as_of="2023-03-01T00:00:00Z")
    assert a.answer == "Denver"
    assert all(e.time.isoformat() <= "2023-03-01T00:00:00+00:00" for e in a.evidence)


def test_llm_plan_spelling_is_tolerated_but_invented_predicates_are_dropped() -> None:
    from emem.agents.planner import PlanReply, plan_from_reply
    from emem.llm.jsonparse import parse_into

    reply = parse_into(
        '{"operation": "temporal lookup", "entities": ["Ana"], "predicates": ["researched", "lives_in"]}',
        PlanReply,
    )
    assert reply.operation == Operation.TEMPORAL_LOOKUP
    plan = plan_from_reply(reply, "When did Ana move?", ["Ana"], None, "fake")
    assert plan.predicates == ["lives_in"]
    with pytest.raises(ValueError):
        parse_into('{"operation": "SUMMARY"}', PlanReply)


def test_a_cut_off_assistant_reply_keeps_its_complete_quotes() -> None:
    from emem.agents.assistant import parse_assistant_reply

    cut = '{"relevant": true, "evidence": [{"turn_id": "S4:1", "quote": "we finally settled in Austin"}, {"turn_id": "S4:3", "quo'
    reply = parse_assistant_reply(cut)
    assert [(q.turn_id, q.quote) for q in reply.evidence] == [("S4:1", "we finally settled in Austin")]
    with pytest.raises(ValueError):
        parse_assistant_reply('{"relevant": true, "evidence": [{"turn_id": "S4')


def test_deep_fills_the_budget_itself_so_context_fill_adds_nothing_offline(demo: Memory) -> None:
    """Offline deep ranks every turn of the activated segments and packs best-first up to the
    budget; the experimental context fill (for assistants that quote few turns) then finds no
    budget left, and neither ever passes the budget."""
    from emem.agents.master import ReadRuntime, ask_graph, build_master_graph

    question = "Where does Alice work now?"
    plain = demo.ask(question, namespace=NS, mode="deep", budget=300)
    filled = ask_graph(
        build_master_graph(ReadRuntime(demo, demo.roles, fill_context=True)), question, NS, "deep", None, 300
    )
    assert plain.answer == filled.answer
    assert 300 - 60 < plain.usage.context_tokens <= 300 and filled.usage.context_tokens <= 300
    quoted = {e.turn_id for e in plain.evidence if e.role != "context"}
    assert quoted == {e.turn_id for e in filled.evidence if e.role != "context"}
    assert {e.turn_id for e in plain.evidence} <= {e.turn_id for e in filled.evidence}
    scores = [e.score for e in plain.evidence if e.role == "evidence"]
    assert scores == sorted(scores, reverse=True)  # best-first


def test_deep_packs_at_least_the_turns_fast_packs(demo: Memory) -> None:
    """Deep's candidates include fast's retrieval, scored on the same calibrated scale."""
    for question in (
        "Where does Alice work now?",
        "What pets do Alice and Ben have?",
        "Where did Ben travel?",
    ):
        fast = demo.ask(question, namespace=NS, mode="fast", budget=4000)
        deep = demo.ask(question, namespace=NS, mode="deep", budget=4000)
        if fast.status == "abstained":
            continue
        assert {e.turn_id for e in fast.evidence} <= {e.turn_id for e in deep.evidence}


def test_deep_records_its_hops_and_bounds_them(demo: Memory) -> None:
    from emem.agents.master import ReadRuntime, ask_graph, build_master_graph

    a = demo.ask("What pets do Alice and Ben have?", namespace=NS, mode="deep")
    assert 1 <= len(a.usage.segments_per_hop) <= 3
    assert all(n <= 5 for n in a.usage.segments_per_hop)
    assert sum(a.usage.segments_per_hop) == len(a.activated_segments)
    assert len({s.segment_id for s in a.activated_segments}) == len(a.activated_segments)
    one = ask_graph(
        build_master_graph(ReadRuntime(demo, demo.roles, max_hops=1)),
        "What pets do Alice and Ben have?",
        NS,
        "deep",
        None,
        2000,
    )
    assert len(one.usage.segments_per_hop) == 1 and not one.usage.hop_terms
    assert one.usage.prompt_tokens <= a.usage.prompt_tokens


def test_offline_reader_never_answers_from_context_fill() -> None:
    """Context turns are unquoted: with no evidence the offline reader abstains, and a COUNT
    counts only evidence, however many context turns were packed."""
    from datetime import UTC, datetime

    from emem.agents.reader import offline_read
    from emem.answer import EvidenceItem, PackResult

    def unit(tid: str, role: str) -> Closure:
        e = EvidenceItem(turn_id=tid, session_id="S1", conversation_id="c", speaker="A", score=0.9, role=role,
                         time=datetime(2023, 1, 1, tzinfo=UTC), text=f"I adopted pet number {tid}.", segment_id="c/S1")  # fmt: skip
        return Closure(
            key=f"{role}:{tid}", group=f"{role}:{tid}", priority=1.0, lines=[e.text], tokens=5, evidence=[e]
        )

    plan = offline_plan("How many pets did A adopt?")
    context_only = PackResult(
        closures=[unit("S1:1", "context"), unit("S1:2", "context")], tokens=10, budget=100
    )
    assert offline_read("How many pets did A adopt?", plan, context_only, [])[1] == "abstained"
    mixed = PackResult(
        closures=[unit("S1:1", "evidence"), unit("S1:2", "context"), unit("S1:3", "context")],
        tokens=15,
        budget=100,
    )
    assert offline_read("How many pets did A adopt?", plan, mixed, []) == ("1", "answered")


def test_context_closures_rank_below_evidence() -> None:
    from datetime import UTC, datetime

    from emem.agents.aggregate import context_closures
    from emem.answer import EvidenceItem

    def item(tid: str, score: float) -> EvidenceItem:
        return EvidenceItem(turn_id=tid, session_id="S1", conversation_id="c", speaker="A", score=score,
                            time=datetime(2023, 1, 1, tzinfo=UTC), text=f"turn {tid}", segment_id="c/S1")  # fmt: skip

    out = context_closures([item("S1:1", 0.2), item("S1:2", 0.9), item("S1:3", 0.5)], taken={("c", "S1:3")})
    assert [c.key for c in out] == ["context:c/S1:2", "context:c/S1:1"]
    assert all(c.priority < 0 and c.evidence[0].role == "context" for c in out)
    weakest_evidence = Closure(key="turn:c/S1:9", group="turn:c/S1:9", priority=0.0, lines=["x"], tokens=1)
    assert [c.key for c in pack([*out, weakest_evidence], 100).closures][0] == "turn:c/S1:9"
