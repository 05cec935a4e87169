"""Saved segment states (local assistants' KV mode) without a model: keys, invalidation when a
segment changes, LRU eviction under the disk budget, erasure, stats, usage and the config gate.
The state bytes here are stand-ins holding the segment's text, so a scan of the files shows
whether erased text survived; tests/test_segment_state_local.py does the same with real KV."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import small_conversation

from emem.agents.assistant import segment_prefix
from emem.llm.config import load_llm_settings, local_state_model
from emem.llm.usage import LLMCall, Usage
from emem.memory import Memory
from emem.prompting import load_prompt
from emem.segment_state import STATE_DIR, SegmentStateCache, StateKey, segment_hash

NS = "kv"


def key(segment: str = "s1", content: str = "v1", namespace: str = NS, model: str = "m@1") -> StateKey:
    return StateKey(
        namespace=namespace,
        model=model,
        prompt_hash="p",
        segment_id=segment,
        segment_hash=segment_hash(content),
    )


def state_files(root: Path) -> list[Path]:
    return sorted(root.glob("*.state"))


def test_key_depends_on_every_part() -> None:
    base = key()
    assert base.digest == key().digest
    variants = [
        key(segment="s2"),
        key(content="v2"),
        key(namespace="other"),
        key(model="m@2"),
        base.model_copy(update={"prompt_hash": "q"}),
    ]
    assert len({v.digest for v in variants} | {base.digest}) == 6


def test_put_get_roundtrip_and_a_lost_file_is_a_miss(tmp_path: Path) -> None:
    cache = SegmentStateCache(tmp_path / STATE_DIR, budget_bytes=1 << 20)
    assert cache.get(key()) is None and not cache.exists  # nothing created by a read
    cache.put(key(), b"state-1", 7, ["c1/S1:1"])
    assert cache.get(key()) == b"state-1"
    (entry,) = cache.entries(NS)
    assert entry.n_tokens == 7 and entry.bytes == 7 and entry.turn_refs == ["c1/S1:1"]
    cache.path_of(key()).unlink()
    assert cache.get(key()) is None and cache.entries() == []


def test_a_changed_segment_replaces_its_old_state(tmp_path: Path) -> None:
    cache = SegmentStateCache(tmp_path / STATE_DIR, budget_bytes=1 << 20)
    cache.put(key("s1", "two turns"), b"old", 2, ["c1/S1:1", "c1/S1:2"])
    cache.put(key("s2", "other"), b"keep", 1, ["c1/S2:1"])
    stale = cache.put(key("s1", "three turns"), b"new", 3, ["c1/S1:1", "c1/S1:2", "c1/S1:3"])
    assert stale == [key("s1", "two turns").digest]
    assert cache.get(key("s1", "two turns")) is None
    assert cache.get(key("s1", "three turns")) == b"new" and cache.get(key("s2", "other")) == b"keep"
    assert len(state_files(cache.root)) == 2


def test_lru_eviction_keeps_the_budget(tmp_path: Path) -> None:
    cache = SegmentStateCache(tmp_path / STATE_DIR, budget_bytes=300)
    for i in range(3):
        cache.put(key(f"s{i}"), bytes(100), 10, [f"c1/S{i}:1"])
    assert cache.get(key("s0")) is not None  # s0 used last: s1 is now the least recent
    evicted = cache.put(key("s3"), bytes(100), 10, ["c1/S3:1"])
    assert evicted == [key("s1").digest]
    assert {e.key.segment_id for e in cache.entries()} == {"s0", "s2", "s3"}
    assert sum(p.stat().st_size for p in state_files(cache.root)) <= 300
    assert cache.put(key("huge"), bytes(301), 1, []) == [] and cache.get(key("huge")) is None


def test_erase_by_turn_and_by_namespace(tmp_path: Path) -> None:
    cache = SegmentStateCache(tmp_path / STATE_DIR, budget_bytes=1 << 20)
    cache.put(key("s1"), b"a", 1, ["c1/S1:1", "c1/S1:2"])
    cache.put(key("s2"), b"b", 1, ["c1/S2:1"])
    cache.put(key("s1", namespace="other"), b"c", 1, ["c1/S1:1"])
    assert cache.erase(NS, {"c1/S1:2", "c9/none"}) == 1
    assert [e.key.segment_id for e in cache.entries(NS)] == ["s2"]
    assert len(cache.entries("other")) == 1  # the same ref in another tenant is another turn
    assert cache.erase(NS, None) == 1 and cache.entries(NS) == []
    assert len(state_files(cache.root)) == 1


@pytest.fixture
def filled(home: Path):
    with Memory(home) as m:
        m.add_conversation(small_conversation("c1"), namespace=NS)
        m.add_conversation(small_conversation("c2"), namespace="other")
        yield m


def _segments(memory: Memory, namespace: str):
    return memory.read_runtime.view(namespace).segments


def _build_states(memory: Memory, namespace: str) -> None:
    """Stand-in states: each holds its segment's text, as a real state holds its tokens."""
    for seg in _segments(memory, namespace):
        memory.segment_states.put(
            key(seg.segment_id, seg.text(), namespace=namespace),
            seg.text().encode(),
            len(seg.turns),
            [f"{t.conversation_id}/{t.turn_id}" for t in seg.turns],
        )


def test_forget_deletes_every_state_holding_the_erased_turn(filled: Memory, home: Path) -> None:
    _build_states(filled, NS)
    _build_states(filled, "other")
    secret = b"adopted a parrot called Kiwi"
    root = home / STATE_DIR
    holders = [p for p in state_files(root) if secret in p.read_bytes()]
    assert len(holders) == 2  # one per namespace: the scan below can fail
    before = filled.stats(NS).segment_states
    assert before is not None and before.namespace_states == len(_segments(filled, NS))
    report = filled.forget(namespace=NS, turn_ids=["S2:3"])
    assert report.segment_states == 1
    left = [p for p in state_files(root) if secret in p.read_bytes()]
    assert len(left) == 1 and left[0] in holders  # only the other tenant's copy
    ns_entries = filled.segment_states.entries(NS)
    assert all("c1/S2:3" not in e.turn_refs for e in ns_entries)
    assert len(ns_entries) == len(_segments(filled, NS)) - 1  # the untouched segment keeps its state
    filled.drop_namespace("other")
    assert not [p for p in state_files(root) if secret in p.read_bytes()]
    assert filled.stats(NS).segment_states.states == len(ns_entries)  # type: ignore[union-attr]


def test_stats_without_states_says_none(filled: Memory, home: Path) -> None:
    assert filled.stats(NS).segment_states is None
    assert not (home / STATE_DIR).exists()


def test_prefix_key_ignores_the_question_and_follows_the_segment(filled: Memory) -> None:
    seg = _segments(filled, NS)[0]
    system = load_prompt("assistant").text

    def prefix(segment, question: str):
        from emem.agents.assistant import _task

        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": _task(segment, question, "FACT")},
        ]
        return segment_prefix(segment, messages, NS, "m@1", "p"), messages

    a, ma = prefix(seg, "Where does Dana surf?")
    b, mb = prefix(seg, "Who adopted a parrot?")
    assert a is not None and b is not None and a.key == b.key and a.chars == b.chars
    assert ma[1]["content"][: a.chars] == mb[1]["content"][: b.chars]
    assert (
        "Question" not in ma[1]["content"][: a.chars] and "Where does Dana" not in ma[1]["content"][: a.chars]
    )
    shorter = seg.model_copy(update={"turns": seg.turns[:-1]})
    c, _ = prefix(shorter, "Where does Dana surf?")
    assert c is not None and c.key.segment_id == a.key.segment_id and c.key.digest != a.key.digest
    assert a.turn_refs == [f"{t.conversation_id}/{t.turn_id}" for t in seg.turns]


def test_usage_separates_computed_from_restored() -> None:
    calls = [
        LLMCall(role="assistant", model="m", backend="llama_cpp", prompt_tokens=1000, state_built=True),
        LLMCall(
            role="assistant",
            model="m",
            backend="llama_cpp",
            prompt_tokens=1010,
            restored_tokens=980,
            restored_bytes=12_000_000,
            restore_ms=40.5,
        ),  # fmt: skip
        LLMCall(role="reader", model="r", backend="openai", prompt_tokens=500),
    ]
    usage = Usage.from_calls(calls)
    assert usage.prompt_tokens == 2510 and usage.restored_prompt_tokens == 980
    assert usage.computed_prompt_tokens == 1530 and usage.states_built == 1
    role = usage.by_role["assistant"]
    assert (role.computed_prompt_tokens, role.restored_prompt_tokens, role.restored_bytes) == (
        1030,
        980,
        12_000_000,
    )
    assert role.restore_ms == 40.5 and usage.by_role["reader"].restored_prompt_tokens == 0


def test_segment_state_only_for_a_local_assistant(tmp_path: Path) -> None:
    home = tmp_path / "llmhome"
    (home / "models").mkdir(parents=True)
    (home / "models" / "tiny.gguf").write_bytes(b"GGUF")
    local = {"EMEM_LLM_BASE_URL": "http://127.0.0.1:8765/v1", "EMEM_LLM_MODEL": "tiny"}
    on = load_llm_settings(home, {**local, "EMEM_LLM_SEGMENT_STATE": "local"})
    assert local_state_model("assistant", on) == home / "models" / "tiny.gguf"
    assert local_state_model("reader", on) is None  # assistants only
    assert local_state_model("assistant", load_llm_settings(home, local)) is None  # off by default
    remote = {"EMEM_LLM_BASE_URL": "https://api.example.com/v1", "EMEM_LLM_MODEL": "tiny"}
    settings = load_llm_settings(home, {**remote, "EMEM_LLM_SEGMENT_STATE": "local"})
    assert local_state_model("assistant", settings) is None  # remote: text only
    missing = load_llm_settings(
        home, {**local, "EMEM_LLM_MODEL": "absent", "EMEM_LLM_SEGMENT_STATE": "local"}
    )
    assert local_state_model("assistant", missing) is None


def test_benchmark_order_deals_categories_round_robin_per_conversation() -> None:
    """A run of the cold/warm benchmark stopped early must still cover every category, and a
    later conversation's questions come after the first's (it is ingested only when reached)."""
    from emem.eval.bench_segment_state_locomo import interleave_categories
    from emem.eval.locomo_data import LocomoQuestion

    def q(sample: str, index: int, category: int) -> LocomoQuestion:
        return LocomoQuestion(
            qid=f"{sample}#{index}", sample_id=sample, index=index, question="?", category=category,
            gold="", evidence=[],
        )  # fmt: skip

    file_order = [q("a", 0, 1), q("a", 1, 1), q("a", 2, 2), q("a", 3, 5), q("b", 0, 3), q("a", 4, 2)]
    dealt = [x.qid for x in interleave_categories(file_order)]
    assert dealt == ["a#0", "a#2", "a#3", "a#1", "a#4", "b#0"]
    assert sorted(dealt) == sorted(x.qid for x in file_order)


def test_in_process_threads_come_from_llm_json_or_the_environment(tmp_path: Path) -> None:
    """The in-process assistant's thread count is a setting (one thread measured faster on a
    loaded 2-core machine); the environment overrides the file, and nonsense is refused."""
    from emem.errors import ConfigError

    assert load_llm_settings(tmp_path, env={}).threads == 2
    (tmp_path / "llm.json").write_text('{"threads": 3}')
    assert load_llm_settings(tmp_path, env={}).threads == 3
    assert load_llm_settings(tmp_path, env={"EMEM_LLM_THREADS": "1"}).threads == 1
    with pytest.raises(ConfigError):
        load_llm_settings(tmp_path, env={"EMEM_LLM_THREADS": "0"})
