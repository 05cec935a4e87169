"""`emem eval longmemeval` end to end on a tiny hand-written fixture in the official LongMemEval
format (the real data lives on Hugging Face and is never used by tests): ingestion, the offline
reader, the per-type yes/no judge (scripted), accuracy and recall math, resume, and bad dates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emem.errors import ConflictError, InputError
from emem.eval import longmemeval_run as lme
from emem.eval.longmemeval_data import load_longmemeval
from emem.eval.manifest import read_manifest, write_manifest
from emem.eval.report import OFFLINE_READER_LINE
from emem.eval.runlog import read_rows
from emem.llm.base import ChatResult
from emem.llm.usage import LLMCall

SYSTEMS = "emem-deep,rag-bm25"


def _t(role: str, content: str, **extra: object) -> dict:
    return {"role": role, "content": content, **extra}


FIXTURE = [
    {
        "question_id": "q1user",
        "question_type": "single-session-user",
        "question": "What did I name my new bicycle?",
        "answer": "Comet",
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": ["sharegpt_x1_0", "answer_a1"],
        "haystack_dates": ["2023/05/01 (Mon) 09:00", "2023/05/15 (Mon) 18:30"],
        "haystack_sessions": [
            [_t("user", "Can you suggest a pasta recipe with tomatoes?"),
             _t("assistant", "Try a simple pomodoro sauce with basil and garlic."),
             _t("user", "Should I add parmesan cheese at the end?"),
             _t("assistant", "Yes, grate it over the pasta just before serving.")],
            [_t("user", "I bought a red bicycle and I named it Comet.", has_answer=True),
             _t("assistant", "What a lovely choice, enjoy your rides!"),
             _t("user", "   ")],
        ],
        "answer_session_ids": ["answer_a1"],
    },
    {
        "question_id": "q2temp",
        "question_type": "temporal-reasoning",
        "question": "How many days passed between my violin recital and my trip to Rome?",
        "answer": "18 days",
        "question_date": "2023/06/10 (Sat) 12:00",
        "haystack_session_ids": ["answer_b1", "ultrachat_9", "answer_b2"],
        "haystack_dates": ["2023/05/15 (Mon) 10:00", "2023/05/20 (Sat) 10:00", "2023/06/02 (Fri) 08:15"],
        "haystack_sessions": [
            [_t("user", "Today I played the violin recital at the town hall.", has_answer=True),
             _t("assistant", "Congratulations on the violin recital!")],
            [_t("user", "Explain how photosynthesis works."),
             _t("assistant", "Plants turn light, water and carbon dioxide into sugar.")],
            [_t("user", "I just landed in Rome for my trip.", has_answer=True),
             _t("assistant", "Enjoy Rome!")],
        ],
        "answer_session_ids": ["answer_b1", "answer_b2"],
    },
    {
        "question_id": "gpt4_q3_abs",
        "question_type": "knowledge-update",
        "question": "What is the name of my hamster?",
        "answer": "The user mentioned a cat named Miso but never a hamster.",
        "question_date": "2023/06/10 (Sat) 12:00",
        "haystack_session_ids": ["answer_c1"],
        "haystack_dates": ["2023/04/10 (Mon) 20:00"],
        "haystack_sessions": [
            [_t("user", "My cat Miso knocked over a plant again.", has_answer=True),
             _t("assistant", "Cats love to do that.")],
        ],
        "answer_session_ids": ["answer_c1"],
    },
]  # fmt: skip
QIDS = [i["question_id"] for i in FIXTURE]


class ScriptedJudge:
    """A ChatModel whose verdict depends only on the question, recording every prompt it saw."""

    model = "scripted-judge"

    def __init__(self, yes: set[str]) -> None:
        self.yes = yes
        self.prompts: list[str] = []

    def chat(self, role, messages, *, schema=None, max_tokens=512, temperature=0.0, prompt_hash=None):
        assert role == "judge" and temperature == 0.0 and max_tokens == lme.JUDGE_MAX_TOKENS
        prompt = messages[0]["content"]
        self.prompts.append(prompt)
        text = "Yes." if any(q in prompt for q in self.yes) else "no"
        call = LLMCall(
            role="judge", model=self.model, backend="openai", prompt_tokens=50, completion_tokens=1,
            prompt_hash=prompt_hash,
        )  # fmt: skip
        return ChatResult(text=text, call=call)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "lme_mini.json"
    path.write_text(json.dumps(FIXTURE), encoding="utf-8")
    return path


def _rows(out: Path) -> list[lme.LmeRow]:
    return read_rows(out / "rows.jsonl", lme.LmeRow)


def _run(data: Path, out: Path, judge: str = "none", limit: int | None = None) -> Path:
    return lme.run_longmemeval(data, SYSTEMS, "offline", judge, 2000, limit, out)


# --------------------------------------------------------------------------------------------
# Pure pieces
# --------------------------------------------------------------------------------------------


def test_parse_lme_date():
    dt = lme.parse_lme_date("2023/05/30 (Tue) 23:40", "q")
    assert dt.isoformat() == "2023-05-30T23:40:00+00:00"
    for bad in ("2023-05-30 23:40", "2023/05/30 23:40", "2023/13/01 (Mon) 10:00", "2023/05/30 (Mon) 23:40"):
        with pytest.raises(InputError, match="date"):
            lme.parse_lme_date(bad, "q")


def test_instance_to_emem_keeps_dataset_ids_roles_and_times(data):
    inst = load_longmemeval(data)[0]
    conv = lme.instance_to_emem(inst)
    s = conv["sessions"][1]
    assert s["session_id"] == "answer_a1" and s["time"] == "2023-05-15T18:30:00+00:00"
    assert [(t["turn_id"], t["speaker"]) for t in s["turns"]] == [
        ("answer_a1:0", "user"),
        ("answer_a1:1", "assistant"),
    ]
    assert lme.namespace_of(load_longmemeval(data)[2]) == "eval-lme-gpt4.q3.abs"


def test_session_recall_and_ranking():
    ranked = lme.rank_sessions(
        ["a:1", "b:0", "a:0", "zz:9", "c:2"], {"a:0": "a", "a:1": "a", "b:0": "b", "c:2": "c"}
    )
    assert ranked == ["a", "b", "c"]
    r = lme.session_recall(["a", "c"], ranked, ks=(2, 3))
    assert r == {"recall_any@2": 1.0, "recall_all@2": 0.0, "recall_any@3": 1.0, "recall_all@3": 1.0}


def test_judge_templates_cover_every_type_and_fill_in_one_pass():
    t = lme.load_judge_templates()
    for qtype in lme.QUESTION_TYPES:
        assert "{{response}}" in t.template_for(qtype, False)
    assert "off-by-one" in t.template_for("temporal-reasoning", False)
    assert "unanswerable" in t.template_for("single-session-user", True)
    with pytest.raises(InputError, match="no judge prompt"):
        t.template_for("made-up-type", False)
    filled = lme.render_lme_judge(
        "Q: {{question}} G: {{gold_answer}} R: {{response}}", "{{response}}?", "g", "r"
    )
    assert filled == "Q: {{response}}? G: g R: r"


# --------------------------------------------------------------------------------------------
# End to end
# --------------------------------------------------------------------------------------------


def test_offline_run_without_judge(data, tmp_path):
    out = tmp_path / "run"
    report = _run(data, out)
    rows = _rows(out)
    assert {(r.system, r.qid) for r in rows} == {(s, q) for s in SYSTEMS.split(",") for q in QIDS}
    assert all(r.status == "ok" and r.judge_correct is None for r in rows)
    by = {(r.system, r.qid): r for r in rows}
    # Retrieval is defined for answerable questions only; the abstention question is excluded.
    assert by[("rag-bm25", "gpt4_q3_abs")].retrieval["recall_any@5"] is None
    bm25 = by[("rag-bm25", "q1user")]
    assert bm25.retrieval["recall_any@5"] == 1.0 and bm25.ranked_sessions[0] == "answer_a1"
    assert set(bm25.ranked_sessions) <= {"answer_a1", "sharegpt_x1_0"}
    assert by[("emem-deep", "q1user")].usage.offline
    text = report.read_text(encoding="utf-8")
    assert OFFLINE_READER_LINE in text and "accuracy is not computed" in text
    assert "## Accuracy" not in text and "## Retrieval (session level)" in text and "## Cost" in text
    manifest = read_manifest(out)
    assert (
        manifest.reader_offline and manifest.budget == 2000 and manifest.extra["benchmark"] == "longmemeval"
    )
    assert manifest.dataset_sha256 and lme.JUDGE_PROMPT + ".md" in manifest.prompts
    assert manifest.extra["time_anchor"] == "emem-deep, rag-bm25 answered with as_of = question_date"
    # The report says so when answers came from an LLM reader instead.
    write_manifest(manifest.model_copy(update={"reader_offline": False, "models": {"reader": "gpt-x"}}), out)
    text = lme.build_lme_report(out).read_text(encoding="utf-8")
    assert "**Reader: LLM** (gpt-x)" in text and OFFLINE_READER_LINE not in text


def test_scripted_judge_accuracy_and_resume(data, tmp_path, monkeypatch):
    out = tmp_path / "run"
    _run(data, out, limit=2)  # no judge, two questions
    assert len(_rows(out)) == 4
    judge = ScriptedJudge(yes={"bicycle", "hamster"})
    monkeypatch.setattr(lme, "judge_model", lambda name, home: judge if name == "openai" else None)

    def no_new_answers(system, inst):  # resume must not re-ask the two logged questions
        assert inst.question_id == "gpt4_q3_abs", inst.question_id
        return real_answer_one(system, inst)

    real_answer_one = lme.answer_one
    monkeypatch.setattr(lme, "answer_one", no_new_answers)
    report = _run(data, out, judge="openai")
    rows = _rows(out)
    assert len(rows) == 6 and all(r.judge_correct is not None for r in rows)
    assert len(judge.prompts) == 6  # 4 logged rows judged on resume + 2 new ones
    abs_prompts = [p for p in judge.prompts if "hamster" in p]
    assert abs_prompts and all("unanswerable" in p for p in abs_prompts)
    assert all("off-by-one" in p for p in judge.prompts if "violin" in p)
    s = lme.accuracy_summary([r for r in rows if r.system == "rag-bm25"])
    # Yes for q1 (single-session-user) and the abstention (knowledge-update), no for q2 (temporal).
    assert s["overall"] == pytest.approx(2 / 3) and s["abstention"] == 1.0
    assert s["per_type"] == {"single-session-user": 1.0, "temporal-reasoning": 0.0, "knowledge-update": 1.0}
    assert s["task_averaged"] == pytest.approx(2 / 3) and s["judged"] == 3
    text = report.read_text(encoding="utf-8")
    assert "## Accuracy" in text and "accuracy is not computed" not in text and "66.7" in text
    # A third run has nothing left to ask or judge.
    before = (out / "rows.jsonl").read_text(encoding="utf-8")
    monkeypatch.setattr(lme, "answer_one", lambda *a: pytest.fail("nothing should be asked"))
    _run(data, out, judge="openai")
    assert (out / "rows.jsonl").read_text(encoding="utf-8") == before and len(judge.prompts) == 6


def test_failed_rows_are_kept_and_judged_wrong(data, tmp_path, monkeypatch):
    def boom(system, inst):
        if system.name == "rag-bm25":
            raise RuntimeError("index exploded")
        return real_ask(system, inst)

    real_ask = lme.ask_system
    monkeypatch.setattr(lme, "ask_system", boom)
    judge = ScriptedJudge(yes=set(QIDS) | {"bicycle", "violin", "hamster"})
    monkeypatch.setattr(lme, "judge_model", lambda name, home: judge)
    out = tmp_path / "run"
    _run(data, out, judge="openai")
    failed = [r for r in _rows(out) if r.system == "rag-bm25"]
    assert len(failed) == 3 and all(r.status == "error" and r.judge_correct is False for r in failed)
    assert "index exploded" in failed[0].error and failed[1].retrieval["recall_any@5"] == 0.0
    assert len(judge.prompts) == 3  # failed rows are WRONG without asking
    assert lme.accuracy_summary(failed)["overall"] == 0.0
    assert "## Errors" in (out / "report.md").read_text(encoding="utf-8")


def test_failed_ingestion_and_judge_failures_are_rows(data, tmp_path, monkeypatch):
    monkeypatch.setattr(lme, "ingest", lambda memory, inst: (_ for _ in ()).throw(ValueError("disk full")))
    out = tmp_path / "run"
    _run(data, out, limit=1)
    rows = _rows(out)
    assert len(rows) == 2 and all(
        r.status == "error" and "prepare failed: ValueError: disk full" in r.error for r in rows
    )

    def flaky(row):
        raise TimeoutError("judge down")

    judged = lme.apply_judge(rows[0].model_copy(update={"status": "ok"}), flaky)
    assert judged.judge_correct is None and judged.judge_error == "TimeoutError: judge down"
    assert lme.accuracy_summary([judged])["unjudged"] == 1


# --------------------------------------------------------------------------------------------
# Input errors
# --------------------------------------------------------------------------------------------


def test_bad_date_is_an_error_naming_the_instance(tmp_path):
    broken = json.loads(json.dumps(FIXTURE))
    broken[1]["haystack_dates"][2] = "June 2nd, 2023"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(InputError, match="unparsable LongMemEval date") as info:
        _run(path, tmp_path / "run")
    assert "q2temp session answer_b2" in str(info.value)
    assert not (tmp_path / "run" / "rows.jsonl").exists()


def test_option_errors(data, tmp_path, monkeypatch):
    for key in ("EMEM_LLM_BASE_URL", "EMEM_LLM_MODEL", "EMEM_LLM_READER_MODEL", "EMEM_LLM_JUDGE_MODEL"):
        monkeypatch.delenv(key, raising=False)
    out = tmp_path / "run"
    with pytest.raises(InputError, match="no LLM endpoint"):
        lme.run_longmemeval(data, SYSTEMS, "openai", "none", 2000, None, out)
    with pytest.raises(InputError, match="unknown reader"):
        lme.run_longmemeval(data, SYSTEMS, "gpt", "none", 2000, None, out)
    with pytest.raises(InputError, match="unknown judge"):
        lme.run_longmemeval(data, SYSTEMS, "offline", "gpt", 2000, None, out)
    with pytest.raises(InputError, match="no judge endpoint"):
        lme.run_longmemeval(data, SYSTEMS, "offline", "openai", 2000, None, out)
    with pytest.raises(InputError, match="unknown system"):
        lme.run_longmemeval(data, "emem-deep,bogus", "offline", "none", 2000, None, out)
    with pytest.raises(InputError, match="budget"):
        lme.run_longmemeval(data, SYSTEMS, "offline", "none", 10, None, out)


def test_resume_refuses_another_budget(data, tmp_path):
    out = tmp_path / "run"
    _run(data, out, limit=1)
    with pytest.raises(ConflictError, match="budget"):
        lme.run_longmemeval(data, SYSTEMS, "offline", "none", 1000, 1, out)
