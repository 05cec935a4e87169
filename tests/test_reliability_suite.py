"""The reliability suite's data is well formed and fair, and its runner works end to end offline
through the public API only (no pass-rate threshold here: the figures are reported, not asserted)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from emem.embedding import default_embedder
from emem.eval.reliability.__main__ import _parser, main
from emem.eval.reliability.cases import DIMENSIONS, FRESH_ORDER, SPLITS, load_suite, sample_cases
from emem.eval.reliability.report import markdown_report
from emem.eval.reliability.runner import CaseResult, run_mode
from emem.eval.reliability.scorer import occurs
from emem.ingest.loader import parse_object
from emem.memory import Memory


@pytest.fixture(scope="module")
def suite():
    return load_suite()


def _text(spec) -> str:
    turns = [t for s in spec.conversation["sessions"] for t in s["turns"]] + spec.append_turns
    return "\n".join(t["text"] + " " + (t.get("image_caption") or "") for t in turns)


def test_the_suite_covers_every_dimension_on_both_splits(suite) -> None:
    assert len(suite.cases) >= 90
    per = Counter((c.dimension, c.split) for c in suite.cases)
    for dim in DIMENSIONS:
        dev, test = per[(dim, "dev")], per[(dim, "test")]
        assert dev + test >= 10, dim
        # dev may grow (new tuning cases go there); the held-out split keeps enough of every dimension
        assert dev >= 6 and test >= 8, (dim, dev, test)


def test_about_two_thirds_of_the_cases_are_agent_conversations(suite) -> None:
    agent = sum(suite.conversations[c.conversation].style == "agent" for c in suite.cases)
    assert 0.55 <= agent / len(suite.cases) <= 0.8


def test_every_conversation_is_valid_emem_json(suite) -> None:
    for spec in suite.conversations.values():
        parse_object(spec.conversation, "emem", spec.id)
        ids = {t["turn_id"] for s in spec.conversation["sessions"] for t in s["turns"]}
        assert all(t["conversation_id"] == spec.conversation["conversation_id"] for t in spec.append_turns)
        assert not ids & {t["turn_id"] for t in spec.append_turns}


def test_expected_values_are_in_the_conversation_or_derived_by_a_stated_rule(suite) -> None:
    for case in suite.cases:
        if case.expect and not any(
            occurs(v, _text(suite.conversations[case.conversation])) for v in case.expect
        ):
            assert case.note, f"{case.id}: no expected value is in the conversation and no note says why"


def test_forget_cases_forbid_the_secret_and_require_the_request_to_be_mentioned(suite) -> None:
    forgets = [c for c in suite.cases if c.dimension == "forget_request" and c.status == "abstained"]
    assert len(forgets) >= 6
    for case in forgets:
        assert case.forbid and "forget" in case.mention, case.id


def test_the_sample_is_deterministic_and_spread_over_dimensions(suite) -> None:
    sample = sample_cases(suite.cases, 16)
    assert sample == sample_cases(suite.cases, 16)
    assert Counter(c.dimension for c in sample) == Counter({d: 2 for d in DIMENSIONS})


class PublicApiOnly:
    """Exposes only what the runner may call, so a call to consolidate (or any other method)
    fails the case instead of silently helping it."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory
        self.calls: list[str] = []

    def add_conversation(self, conversation: dict[str, Any], namespace: str):
        self.calls.append("add_conversation")
        return self._memory.add_conversation(conversation, namespace=namespace)

    def add_turns(self, turns: list[dict[str, Any]], namespace: str):
        self.calls.append("add_turns")
        return self._memory.add_turns(turns, namespace=namespace)

    def ask(self, question: str, namespace: str, mode: str = "auto", as_of: Any = None):
        self.calls.append("ask")
        return self._memory.ask(question, namespace=namespace, mode=mode, as_of=as_of)

    def close(self) -> None:
        self._memory.close()


def test_the_runner_only_writes_and_asks(suite, tmp_path: Path) -> None:
    from emem.agents.roles import RoleModels

    cases = [c for c in suite.cases if c.conversation in ("a01", "a06")][:6]
    proxies: list[PublicApiOnly] = []

    def factory(home: Path) -> PublicApiOnly:
        proxies.append(
            PublicApiOnly(
                Memory(home, embedder=default_embedder(), roles=RoleModels.for_reader("offline", None))
            )
        )
        return proxies[-1]

    results = run_mode(suite, cases, "fast", memory_factory=factory, home=tmp_path)
    assert [r.case_id for r in results] == [c.id for c in cases]
    assert all(r.status != "error" for r in results), [r.error for r in results]
    assert set(proxies[0].calls) == {"add_conversation", "add_turns", "ask"}
    assert all(r.passed == (not r.failures) for r in results)


def test_the_command_writes_results_and_a_report(tmp_path: Path, capsys) -> None:
    assert main(["--modes", "fast", "--sample", "8", "--out", str(tmp_path), "--quiet"]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    assert len(data["results"]) == 8 and data["reader"] == "offline"
    report = (tmp_path / "report.md").read_text()
    assert "| overall |" in report and "Failures" in report
    assert "| dimension (dev) | fast |" in capsys.readouterr().out


def test_no_question_gives_away_an_expected_or_forbidden_value(suite) -> None:
    for case in suite.cases:
        given = [v for v in case.expect + case.forbid if occurs(v, case.question)]
        assert not given, f"{case.id}: the question already contains {given}, so an echo would score"


def test_a_configured_model_answers_when_the_reader_is_local(tmp_path: Path, monkeypatch) -> None:
    """`--reader local` takes the endpoints from llm.json/the environment (here a scripted
    stand-in server on 127.0.0.1) and every answer comes from it, not from the offline path."""
    from fake_openai_server import FakeOpenAIServer, ok

    with FakeOpenAIServer(ok("Portland")) as server:
        monkeypatch.setenv("EMEM_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("EMEM_LLM_MODEL", "fake-local")
        args = ["--reader", "local", "--llm-home", str(tmp_path), "--sample", "2", "--modes", "fast"]
        assert main([*args, "--out", str(tmp_path / "out"), "--quiet"]) == 0
        assert server.chat_requests
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert data["models"]["reader"] == "fake-local"
    assert [r["offline"] for r in data["results"]] == [False, False]


def test_a_local_reader_without_an_endpoint_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("EMEM_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("EMEM_LLM_MODEL", raising=False)
    assert main(["--reader", "local", "--llm-home", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


def test_hallucination_traps_are_judged_by_abstention_alone(suite) -> None:
    """An honest abstention may name the near miss ("Noor has a cat, Saffron, but no dog"), so a
    trap forbids nothing: answering at all is the failure."""
    traps = [c for c in suite.cases if c.dimension == "hallucination_trap"]
    assert all(c.status == "abstained" and not c.forbid and not c.expect for c in traps)


def test_every_case_can_be_passed_by_a_plain_value_answer(suite) -> None:
    """Each acceptable value, given alone with the right status, passes: no case expects and
    forbids the same thing, and a forget case is met by saying the user asked to forget it."""
    from emem.eval.reliability.scorer import score

    for case in suite.cases:
        if case.status == "answered":
            for value in case.expect:
                assert score(case.expectation(), value, "answered").passed, (case.id, value)
        else:
            text = "I don't know: the user asked me to forget that." if case.mention else "I don't know."
            assert score(case.expectation(), text, case.status).passed, case.id


def test_the_holdout_split_is_a_full_suite_of_its_own(suite) -> None:
    """The fresh held-out split: its own conversations (h01...), both styles, dated sessions and
    later turns, and enough cases in every dimension to report per dimension."""
    convs = {k: v for k, v in suite.conversations.items() if v.split == "holdout"}
    assert len(convs) >= 12 and all(re.fullmatch(r"h\d\d", k) for k in convs)
    assert {v.style for v in convs.values()} == {"agent", "friends"}
    assert all(len(v.conversation["sessions"]) >= 2 for v in convs.values())
    assert all(s["time"] for v in convs.values() for s in v.conversation["sessions"])
    assert sum(bool(v.append_turns) for v in convs.values()) >= 6
    cases = suite.select("holdout")
    assert len(cases) >= 90 and {c.split for c in cases} == {"holdout"}
    per = Counter(c.dimension for c in cases)
    assert all(per[d] >= 9 for d in DIMENSIONS), per
    assert all(c.conversation in convs for c in cases)
    assert not any(c.conversation in convs for c in suite.cases if c.split != "holdout")
    assert {c.id for c in suite.select("all")} >= {c.id for c in cases}


def test_the_second_holdout_split_is_a_full_suite_of_its_own(suite) -> None:
    """holdout2, written blind to the code in session 7: its own conversations (k01...), mostly an
    agent and one user, some friends, dated sessions and later turns, 12+ cases in every dimension,
    and some questions asked through the as_of parameter."""
    convs = {k: v for k, v in suite.conversations.items() if v.split == "holdout2"}
    assert len(convs) >= 12 and all(re.fullmatch(r"k\d\d", k) for k in convs)
    assert {v.style for v in convs.values()} == {"agent", "friends"}
    assert all(len(v.conversation["sessions"]) >= 2 for v in convs.values())
    assert all(s["time"] for v in convs.values() for s in v.conversation["sessions"])
    assert sum(bool(v.append_turns) for v in convs.values()) >= 6
    cases = suite.select("holdout2")
    assert len(cases) >= 96 and {c.split for c in cases} == {"holdout2"}
    per = Counter(c.dimension for c in cases)
    assert all(per[d] >= 12 for d in DIMENSIONS), per
    assert all(c.conversation in convs for c in cases)
    assert sum(convs[c.conversation].style == "agent" for c in cases) / len(cases) >= 0.6
    assert sum(c.as_of is not None for c in cases) >= 4
    assert not any(c.conversation in convs for c in suite.cases if c.split != "holdout2")


@pytest.mark.parametrize(
    ("split", "prefix", "per_dimension"),
    [
        ("holdout3", "m", 14),
        ("holdout4", "n", 15),
        ("holdout5", "p", 15),
        ("holdout6", "q", 17),
        ("holdout7", "r", 18),
        ("holdout8", "u", 19),
        ("holdout9", "v", 27),
        ("holdout10", "w", 28),
        ("holdout11", "z", 29),
        ("holdout12", "c", 30),
        ("holdout13", "d", 31),
        ("holdout14", "e", 33),
        ("holdout15", "g", 34),
        ("holdout16", "b", 35),
        ("holdout17", "j", 36),
        ("holdout18", "t", 37),
        ("holdout19", "i", 38),
    ],
)
def test_a_later_holdout_split_is_a_full_suite_of_its_own(
    suite, split: str, prefix: str, per_dimension: int
) -> None:
    """holdout3...holdout19, each written blind to the code (sessions 8 to 24) while others tuned on
    every older split, and committed before emem ran on it: its own conversations
    (m01..., n01..., p01..., q01..., r01..., u01..., v01..., w01..., z01..., c01..., d01..., e01..., g01..., b01..., j01..., t01..., i01...), mostly an agent and one user, some friends, 3+ dated sessions with later ones appended,
    a full set of cases in every dimension, and some asked through the as_of parameter."""
    convs = {k: v for k, v in suite.conversations.items() if v.split == split}
    assert len(convs) >= 12 and all(re.fullmatch(rf"{prefix}\d\d", k) for k in convs)
    assert {v.style for v in convs.values()} == {"agent", "friends"}
    sessions = {
        k: {t["session_id"] for t in v.append_turns} | {s["session_id"] for s in v.conversation["sessions"]}
        for k, v in convs.items()
    }
    assert all(len(ids) >= 3 for ids in sessions.values()), sessions
    assert all(s["time"] for v in convs.values() for s in v.conversation["sessions"])
    assert all(v.append_turns and all(t["time"] for t in v.append_turns) for v in convs.values())
    cases = suite.select(split)
    assert len(cases) >= 112 and {c.split for c in cases} == {split}
    per = Counter(c.dimension for c in cases)
    assert all(per[d] >= per_dimension for d in DIMENSIONS), per
    assert all(c.conversation in convs for c in cases)
    assert sum(convs[c.conversation].style == "agent" for c in cases) / len(cases) >= 0.6
    assert sum(c.as_of is not None for c in cases) >= 6
    assert not any(c.conversation in convs for c in suite.cases if c.split != split)


def test_later_splits_do_not_reshuffle_the_older_cases(suite) -> None:
    """Each later split comes after the ones before it, so a sample over every split picks the
    dev/test cases it picked before the split was added (a local-model sample stays comparable)."""
    for fresh, rank in FRESH_ORDER.items():
        older = [c for c in suite.cases if FRESH_ORDER.get(c.split, 0) < rank]
        assert older and suite.cases[: len(older)] == older, fresh
        assert sample_cases(suite.select("all"), 24) == sample_cases(older, 24), fresh


def _result(case_id: str, split: str, passed: bool, question: str, answer: str) -> CaseResult:
    return CaseResult(
        case_id=case_id,
        dimension="stale_value",
        split=split,
        mode="fast",
        conversation="x",
        question=question,
        expected_status="answered",
        answer=answer,
        status="answered",
        passed=passed,
        failures=[] if passed else ["expect: none of ['Lisbon'] in the answer"],
    )


def test_the_report_details_dev_failures_and_only_names_held_out_ones() -> None:
    results = [
        _result("d-1", "dev", False, "Where does Ana live?", "Porto, says the dev answer"),
        _result("t-1", "test", False, "Where does Bo live?", "Faro, says the test answer"),
        _result("h-1", "holdout", False, "Where does Cy live?", "Braga, says the holdout answer"),
        _result("h-2", "holdout", True, "Where does Di live?", "Lisbon"),
        _result("k-1", "holdout2", False, "Where does Ed live?", "Evora, says the holdout2 answer"),
        _result("m-1", "holdout3", False, "Where does Flo live?", "Tavira, says the holdout3 answer"),
        _result("n-1", "holdout4", False, "Where does Gus live?", "Olhao, says the holdout4 answer"),
        _result("p-1", "holdout5", False, "Where does Hal live?", "Sagres, says the holdout5 answer"),
        _result("q-1", "holdout6", False, "Where does Ida live?", "Lagos, says the holdout6 answer"),
        _result("r-1", "holdout7", False, "Where does Jo live?", "Silves, says the holdout7 answer"),
        _result("u-1", "holdout8", False, "Where does Kay live?", "Loule, says the holdout8 answer"),
        _result("v-1", "holdout9", False, "Where does Lu live?", "Albufeira, says the holdout9 answer"),
        _result("w-1", "holdout10", False, "Where does Mo live?", "Portimao, says the holdout10 answer"),
        _result("z-1", "holdout11", False, "Where does Nel live?", "Aljezur, says the holdout11 answer"),
        _result("c-1", "holdout12", False, "Where does Oz live?", "Vila do Bispo, says the holdout12 answer"),
        _result("d13-1", "holdout13", False, "Where does Pia live?", "Sines, says the holdout13 answer"),
        _result("e14-1", "holdout14", False, "Where does Quin live?", "Odemira, says the holdout14 answer"),
        _result("g15-1", "holdout15", False, "Where does Rafe live?", "Mertola, says the holdout15 answer"),
        _result("b16-1", "holdout16", False, "Where does Sid live?", "Serpa, says the holdout16 answer"),
        _result("j17-1", "holdout17", False, "Where does Tia live?", "Moura, says the holdout17 answer"),
        _result("t18-1", "holdout18", False, "Where does Ugo live?", "Beja, says the holdout18 answer"),
        _result("i19-1", "holdout19", False, "Where does Val live?", "Vidigueira, says the holdout19 answer"),
    ]
    splits = [*SPLITS, "all"]
    report = markdown_report(results, splits, ["fast"], "header")
    assert "| dimension (holdout) | fast |" in report and "| dimension (test) | fast |" in report
    assert "| dimension (holdout2) | fast |" in report and "- k-1 [stale_value]: fast" in report
    assert "| dimension (holdout3) | fast |" in report and "- m-1 [stale_value]: fast" in report
    assert "| dimension (holdout4) | fast |" in report and "- n-1 [stale_value]: fast" in report
    assert "| dimension (holdout5) | fast |" in report and "- p-1 [stale_value]: fast" in report
    assert "| dimension (holdout6) | fast |" in report and "- q-1 [stale_value]: fast" in report
    assert "| dimension (holdout7) | fast |" in report and "- r-1 [stale_value]: fast" in report
    assert "| dimension (holdout8) | fast |" in report and "- u-1 [stale_value]: fast" in report
    assert "| dimension (holdout9) | fast |" in report and "- v-1 [stale_value]: fast" in report
    assert "| dimension (holdout10) | fast |" in report and "- w-1 [stale_value]: fast" in report
    assert "| dimension (holdout11) | fast |" in report and "- z-1 [stale_value]: fast" in report
    assert "| dimension (holdout12) | fast |" in report and "- c-1 [stale_value]: fast" in report
    assert "| dimension (holdout13) | fast |" in report and "- d13-1 [stale_value]: fast" in report
    assert "| dimension (holdout14) | fast |" in report and "- e14-1 [stale_value]: fast" in report
    assert "| dimension (holdout15) | fast |" in report and "- g15-1 [stale_value]: fast" in report
    assert "| dimension (holdout16) | fast |" in report and "- b16-1 [stale_value]: fast" in report
    assert "| dimension (holdout17) | fast |" in report and "- j17-1 [stale_value]: fast" in report
    assert "| dimension (holdout18) | fast |" in report and "- t18-1 [stale_value]: fast" in report
    assert "| dimension (holdout19) | fast |" in report and "- i19-1 [stale_value]: fast" in report
    assert "Where does Ana live?" in report and "Porto, says the dev answer" in report
    hidden_texts = ("Where does Bo live?", "Faro", "Where does Cy live?", "Braga", "Where does Di live?")
    later = ("Where does Ed live?", "Evora", "Where does Flo live?", "Tavira", "Where does Gus live?")
    for hidden in (
        *hidden_texts,
        *later,
        "Olhao",
        "Where does Hal live?",
        "Sagres",
        "Where does Ida live?",
        "Lagos",
        "Where does Jo live?",
        "Silves",
        "Where does Kay live?",
        "Loule",
        "Where does Lu live?",
        "Albufeira",
        "Where does Mo live?",
        "Portimao",
        "Where does Nel live?",
        "Aljezur",
        "Where does Oz live?",
        "Vila do Bispo",
        "Where does Pia live?",
        "Sines",
        "Where does Quin live?",
        "Odemira",
        "Where does Rafe live?",
        "Mertola",
        "Where does Sid live?",
        "Serpa",
        "Where does Tia live?",
        "Moura",
        "Where does Ugo live?",
        "Beja",
        "Where does Val live?",
        "Vidigueira",
    ):
        assert hidden not in report
    assert "- t-1 [stale_value]: fast" in report and "- h-1 [stale_value]: fast" in report
    assert "h-2" not in report
    full = markdown_report(results, splits, ["fast"], "header", show_heldout_failures=True)
    assert "Where does Cy live?" in full and "Braga, says the holdout answer" in full
    assert "Evora, says the holdout2 answer" in full and "Tavira, says the holdout3 answer" in full
    assert "Olhao, says the holdout4 answer" in full and "Sagres, says the holdout5 answer" in full
    assert "Lagos, says the holdout6 answer" in full and "Silves, says the holdout7 answer" in full
    assert "Loule, says the holdout8 answer" in full and "Albufeira, says the holdout9 answer" in full
    assert "Portimao, says the holdout10 answer" in full
    assert "Aljezur, says the holdout11 answer" in full
    assert "Vila do Bispo, says the holdout12 answer" in full
    assert "Sines, says the holdout13 answer" in full
    assert "Odemira, says the holdout14 answer" in full
    assert "Mertola, says the holdout15 answer" in full
    assert "Serpa, says the holdout16 answer" in full
    assert "Moura, says the holdout17 answer" in full
    assert "Beja, says the holdout18 answer" in full
    assert "Vidigueira, says the holdout19 answer" in full
    assert "Where does Bo live?" in full and "Where does Di live?" not in full


@pytest.mark.parametrize("split", list(FRESH_ORDER))  # every held-out split but test, oldest first
def test_the_command_runs_a_held_out_split_without_showing_its_answers(
    suite, split: str, tmp_path: Path, capsys
) -> None:
    case = suite.select(split)[0]
    args = ["--split", split, "--cases", case.id, "--modes", "fast", "--out", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    report = (tmp_path / "report.md").read_text()
    assert f"| dimension ({split}) | fast |" in out and f"| dimension ({split}) | fast |" in report
    assert "dimension (dev)" not in out
    result = json.loads((tmp_path / "results.json").read_text())["results"][0]
    assert result["answer"].strip()
    (line,) = [ln for ln in out.splitlines() if case.id in ln]
    assert line.split()[1:] == ["fast", case.id, result["status"]]  # mark, mode, id, status: no answer
    assert case.question not in report and case.question not in out
    assert _parser().parse_args(["--show-heldout-failures"]).show_heldout_failures
    assert _parser().parse_args(["--split", split]).split == split


@pytest.mark.parametrize(
    ("split", "least"),
    [
        # session 11: 170+ cases, 15+ yes/no, 12+ through as_of, 16+ requests, 8+ controls
        ("holdout6", (170, 15, 12, 16, 8)),
        # session 12: 200+ cases, 20+ yes/no, 25+ through as_of, 18+ requests, 12+ controls
        ("holdout7", (200, 20, 25, 18, 12)),
        # session 13: 250+ cases, 25+ yes/no, 30+ through as_of, 18+ requests, 14+ controls
        ("holdout8", (250, 25, 30, 18, 14)),
        # session 14: 250+ cases, 27+ yes/no, 35+ through as_of, 18+ requests, 14+ controls
        ("holdout9", (250, 27, 35, 18, 14)),
        # session 15: 250+ cases, 30+ yes/no, 37+ through as_of, 18+ requests, 14+ controls
        ("holdout10", (250, 30, 37, 18, 14)),
        # session 16: 255+ cases, 32+ yes/no, 40+ through as_of, 20+ requests, 14+ controls
        ("holdout11", (255, 32, 40, 20, 14)),
        # session 17: 260+ cases, 35+ yes/no, 45+ through as_of, 25+ requests, 14+ controls
        ("holdout12", (260, 35, 45, 25, 14)),
        # session 18: 265+ cases, 35+ yes/no, 50+ through as_of, 25+ requests, 15+ controls
        ("holdout13", (265, 35, 50, 25, 15)),
        # session 19: 295+ cases, 35+ yes/no, 65+ through as_of, 27+ requests, 15+ controls
        ("holdout14", (295, 35, 65, 27, 15)),
        # session 20: 300+ cases, 40+ yes/no, 70+ through as_of, 27+ requests, 15+ controls
        ("holdout15", (300, 40, 70, 27, 15)),
        # session 21: 360+ cases, 45+ yes/no, 90+ through as_of, 27+ requests, 15+ controls
        ("holdout16", (360, 45, 90, 27, 15)),
        # session 22: 365+ cases, 48+ yes/no, 95+ through as_of, 27+ requests, 17+ controls
        ("holdout17", (365, 48, 95, 27, 17)),
        # session 23: 370+ cases, 50+ yes/no, 100+ through as_of, 27+ requests, 18+ controls
        ("holdout18", (370, 50, 100, 27, 18)),
        # session 24: 370+ cases, 55+ yes/no, 100+ through as_of, 27+ requests, 18+ controls
        ("holdout19", (370, 55, 100, 27, 18)),
    ],
)
def test_recent_holdouts_mix_speakers_yes_no_questions_and_as_of(
    suite, split: str, least: tuple[int, int, int, int, int]
) -> None:
    """The latest blind splits: 6 `user`/`assistant` conversations, 3 where the user and the agent
    have names, 4 between friends; yes/no questions, questions asked through as_of, and forget
    requests with controls that must still be answered."""
    cases_at_least, yes_no, as_of, requests, controls = least
    convs = [v for v in suite.conversations.values() if v.split == split]
    speakers = [{t["speaker"] for s in v.conversation["sessions"] for t in s["turns"]} for v in convs]
    plain = sum(
        v.style == "agent" and sp == {"user", "assistant"} for v, sp in zip(convs, speakers, strict=True)
    )
    named = sum(
        v.style == "agent" and not sp & {"user", "assistant"} for v, sp in zip(convs, speakers, strict=True)
    )
    assert plain >= 6 and named >= 3 and sum(v.style == "friends" for v in convs) >= 4
    cases = suite.select(split)
    assert len(cases) >= cases_at_least
    assert sum(c.expect in (["yes"], ["no"]) for c in cases) >= yes_no
    assert sum(c.as_of is not None for c in cases) >= as_of
    forgets = [c for c in cases if c.dimension == "forget_request"]
    assert sum(c.status == "abstained" for c in forgets) >= requests
    assert sum(c.status == "answered" for c in forgets) >= controls


def test_a_forgotten_value_in_the_evidence_is_reported(suite, tmp_path: Path) -> None:
    """The score reads the answer's text; the leak count reads what it cites."""
    from emem.eval.reliability.report import leak_table
    from emem.eval.reliability.runner import ask_case

    case = next(c for c in suite.cases if c.dimension == "forget_request" and c.forbid and not c.expect)
    secret = case.forbid[0]

    class Cited:
        def ask(self, question: str, **_: object) -> object:
            from emem.answer import Answer

            return Answer.model_validate(
                {
                    "question": question,
                    "namespace": "n",
                    "answer": "I can't answer that: the user asked me to forget it.",
                    "status": "abstained",
                    "operation": "FACT",
                    "mode_used": "fast",
                    "mode_requested": "fast",
                    "evidence": [
                        {
                            "conversation_id": "c",
                            "session_id": "s",
                            "turn_id": "t",
                            "speaker": "user",
                            "text": f"it is {secret}",
                            "time": "2025-01-01T00:00:00+00:00",
                        }
                    ],
                }
            )

    result = ask_case(Cited(), case, "fast")
    assert result.passed and result.evidence_leaks == [secret]
    assert "| all | 1 of 1 |" in leak_table([result], ["all"], ["fast"])
