"""Data loaders, run log, manifest and the harness end to end on a tiny hand-written LoCoMo-format
fixture (the real CC BY-NC file is never used by tests)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from emem.errors import ConflictError, InputError, LLMError
from emem.eval.harness import (
    JudgeVerdict,
    chat_judge,
    parse_judge_verdict,
    render_judge_prompt,
    run_eval,
)
from emem.eval.locomo_data import dataset_sha256, iter_questions, load_locomo
from emem.eval.longmemeval_data import iter_instances, load_longmemeval
from emem.eval.manifest import prompt_hashes, read_manifest
from emem.eval.metrics import category_mapping_line
from emem.eval.report import OFFLINE_READER_LINE, PLOT_BY_CATEGORY, PLOT_VS_CONTEXT
from emem.eval.runlog import LOG_NAME, RunLog, read_rows
from emem.eval.systems_base import EvalSystem, SystemOutput
from emem.llm.usage import LLMCall, Usage

# --------------------------------------------------------------------------------------------
# Fixture data
# --------------------------------------------------------------------------------------------


def _turn(sp: str, dia: str, text: str, **extra: object) -> dict:
    return {"speaker": sp, "dia_id": dia, "text": text, **extra}


FIXTURE = [
    {
        "sample_id": "conv-a",
        "conversation": {
            "speaker_a": "Alice",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                _turn("Alice", "D1:1", "I went hiking in the Alps last weekend."),
                _turn("Bob", "D1:2", "Nice! I started a pottery class on Monday."),
                _turn("Alice", "D1:3", "I adopted a cat named Miso.", blip_caption="a photo of a grey cat"),
            ],
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": [
                _turn("Bob", "D2:1", "My pottery teacher says I am improving."),
                _turn("Alice", "D2:2", "I am painting a sunrise for my sister."),
                _turn("Bob", "D2:3", "I moved to Paris in 2022."),
            ],
        },
        "session_summary": {"session_1_summary": "Alice hiked; Bob started pottery."},
        "observation": {"session_1_observation": {"Alice": [["Alice adopted a cat.", "D1:3"]]}},
        "qa": [
            {"question": "What activities has Alice done?", "answer": "hiking, painting",
             "evidence": ["D1:1", "D2:2"], "category": 1},
            {"question": "When did Bob move to Paris?", "answer": 2022, "evidence": ["D2:3"], "category": 2},
            {"question": "Would Alice like a nature trip?", "answer": "Yes; she likes hiking",
             "evidence": [], "category": 3},
            {"question": "What is the name of Alice's cat?", "answer": "Miso", "evidence": ["D1:3"],
             "category": 4},
            {"question": "What class did Alice start?", "adversarial_answer": "pottery class",
             "evidence": ["D1:2"], "category": 5},
            {"question": "What does Bob's pottery teacher say?", "answer": "he is improving",
             "evidence": ["D2:1; D9:9"], "category": 4},
        ],
    },
    {
        "sample_id": "conv-b",
        "conversation": {
            "speaker_a": "Carol",
            "speaker_b": "Dan",
            "session_1_date_time": "9:00 am on 1 June, 2023",
            "session_1": [
                _turn("Carol", "D1:1", "I play the violin in an orchestra."),
                _turn("Dan", "D1:2", "I run marathons every spring."),
            ],
        },
        "qa": [
            {"question": "What instrument does Carol play?", "answer": "violin", "evidence": ["D1:1"],
             "category": 4},
            {"question": "What does Dan do every spring?", "answer": "runs marathons", "evidence": ["(D1:2)"],
             "category": 4},
            {"question": "What did Dan say about swimming?", "adversarial_answer": "he loves it",
             "evidence": ["D"], "category": 5},
        ],
    },
]  # fmt: skip
N_QUESTIONS = 9


@pytest.fixture
def locomo_path(tmp_path: Path) -> Path:
    path = tmp_path / "mini_locomo.json"
    path.write_text(json.dumps(FIXTURE), encoding="utf-8")
    return path


@pytest.fixture
def samples(locomo_path: Path):
    return load_locomo(locomo_path)


# --------------------------------------------------------------------------------------------
# Trivial test systems
# --------------------------------------------------------------------------------------------


class OracleSystem:
    """Answers from a fixed table (gold answers); abstains otherwise. Retrieves nothing."""

    def __init__(self, name: str = "oracle") -> None:
        self.name = name
        self.table = {q["question"]: str(q.get("answer", "")).split(";")[0] for s in FIXTURE for q in s["qa"]}
        self.calls = 0

    def prepare(self, sample) -> None:
        pass

    def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
        self.calls += 1
        text = self.table.get(question) if category != 5 else None
        return SystemOutput(prediction=text or "Not mentioned in the conversation", latency_ms=1.0)


class KeywordSystem:
    """Naive keyword retrieval: the best-overlapping turn's text is the answer."""

    name = "keyword"

    def __init__(self) -> None:
        self.turns: dict[str, list[tuple[str, str]]] = {}

    def prepare(self, sample) -> None:
        self.turns[sample.sample_id] = [(t.dia_id, t.text) for s in sample.sessions for t in s.turns]

    def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
        words = {w.strip("?'s").lower() for w in question.split() if len(w) > 3}
        ranked = sorted(
            self.turns[sample_id],
            key=lambda t: -len(words & {w.strip(".!,").lower() for w in t[1].split()}),
        )
        top = ranked[:3]
        ctx = sum(len(text.split()) for _, text in top)
        call = LLMCall(
            role="reader", model="offline", backend="offline", prompt_tokens=ctx, completion_tokens=4
        )
        return SystemOutput(
            prediction=top[0][1],
            retrieved_ids=[dia for dia, _ in top],
            context_tokens=ctx,
            usage=Usage.from_calls([call], context_tokens=ctx),
            latency_ms=2.0,
            stage_latency_ms={"retrieve": 0.5, "read": 1.5},
        )


class BrokenSystem(OracleSystem):
    """Raises for one question, so error rows can be checked."""

    def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
        if "cat" in question:
            raise RuntimeError("boom")
        return super().answer(question, sample_id, category)


class PrepareFails(OracleSystem):
    def prepare(self, sample) -> None:
        if sample.sample_id == "conv-b":
            raise ValueError("cannot ingest")


def _run(samples, out: Path, systems: list[EvalSystem], **kw) -> Path:
    return run_eval(systems, samples, out_dir=out, progress=False, **kw)


def _body(report: Path) -> str:
    """Everything after the header (which names the code revision)."""
    text = report.read_text(encoding="utf-8")
    return text[text.index("## Official") :]


# --------------------------------------------------------------------------------------------
# Loaders
# --------------------------------------------------------------------------------------------


def test_load_locomo(samples, locomo_path):
    a, b = samples
    assert a.sample_id == "conv-a" and a.speakers == ("Alice", "Bob")
    assert [s.number for s in a.sessions] == [1, 2] and a.sessions[1].date_time == "10:00 am on 20 May, 2023"
    assert a.sessions[0].turns[2].blip_caption == "a photo of a grey cat"
    assert a.qa[1].answer == "2022"  # int gold kept as its string
    assert a.qa[4].answer is None and a.qa[4].adversarial_answer == "pottery class"
    assert a.session_summaries == {1: "Alice hiked; Bob started pottery."}
    assert a.observations[1]["Alice"][0][1] == "D1:3"
    assert dataset_sha256(locomo_path) == hashlib.sha256(locomo_path.read_bytes()).hexdigest()


def test_iter_questions_order_filters_and_evidence(samples):
    qs = list(iter_questions(samples))
    assert [q.qid for q in qs] == [f"conv-a#{i}" for i in range(6)] + [f"conv-b#{i}" for i in range(3)]
    assert qs[5].evidence == ["D2:1"]  # 'D9:9' does not resolve, split on ';'
    assert qs[7].evidence == ["D1:2"]  # parentheses stripped
    assert qs[8].evidence == [] and qs[8].gold == "" and qs[8].adversarial_answer == "he loves it"
    assert [q.qid for q in iter_questions(samples, categories=[4])] == [
        "conv-a#3",
        "conv-a#5",
        "conv-b#0",
        "conv-b#1",
    ]
    assert [q.qid for q in iter_questions(samples, conversations=["conv-b"], limit=2)] == [
        "conv-b#0",
        "conv-b#1",
    ]
    assert [q.qid for q in iter_questions(samples, limit=0)] == []
    with pytest.raises(InputError, match="unknown conversation"):
        list(iter_questions(samples, conversations=["conv-z"]))
    with pytest.raises(InputError):
        list(iter_questions(samples, categories=[7]))


def test_per_category_first_or_spread_over_conversations(samples):
    # category 4: conv-a#3, conv-a#5, conv-b#0, conv-b#1; category 5: conv-a#4, conv-b#2
    first = [q.qid for q in iter_questions(samples, categories=[4, 5], per_category=2)]
    assert first == ["conv-a#3", "conv-a#4", "conv-a#5", "conv-b#2"]
    spread = [q.qid for q in iter_questions(samples, categories=[4, 5], per_category=2, sample="spread")]
    assert spread == [
        "conv-a#3",
        "conv-a#4",
        "conv-b#0",
        "conv-b#2",
    ]  # one of each per conversation, file order
    three = [q.qid for q in iter_questions(samples, categories=[4], per_category=3, sample="spread")]
    assert three == ["conv-a#3", "conv-a#5", "conv-b#0"]  # round two starts again at conv-a
    more = [q.qid for q in iter_questions(samples, categories=[4], per_category=9, sample="spread")]
    assert more == ["conv-a#3", "conv-a#5", "conv-b#0", "conv-b#1"]  # asking for more than exist
    only_b = [
        q.qid for q in iter_questions(samples, conversations=["conv-b"], per_category=1, sample="spread")
    ]
    assert only_b == ["conv-b#0", "conv-b#2"]
    with pytest.raises(InputError, match="sample must be"):
        list(iter_questions(samples, per_category=1, sample="random"))


def test_load_locomo_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        load_locomo(bad)
    broken = json.loads(json.dumps(FIXTURE))
    del broken[0]["conversation"]["session_2_date_time"]
    bad.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(InputError, match="session_2_date_time"):
        load_locomo(bad)
    broken = json.loads(json.dumps(FIXTURE))
    broken[1]["qa"][0]["category"] = 9
    bad.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(InputError, match="conv-b"):
        load_locomo(bad)
    with pytest.raises(InputError, match="cannot read"):
        load_locomo(tmp_path / "missing.json")


LME = [
    {
        "question_id": "q1",
        "question_type": "single-session-user",
        "question": "Where did I park?",
        "answer": "Level 3",
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": ["sharegpt_x_0", "answer_ab12"],
        "haystack_dates": ["2023/05/01 (Mon) 10:00", "2023/05/29 (Mon) 09:00"],
        "haystack_sessions": [
            [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
            [{"role": "user", "content": "I parked on level 3", "has_answer": True}],
        ],
        "answer_session_ids": ["answer_ab12"],
    },
    {
        "question_id": "q2_abs",
        "question_type": "temporal-reasoning",
        "question": "How many days ago did I buy a boat?",
        "answer": 12,
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": [],
        "haystack_dates": [],
        "haystack_sessions": [],
        "answer_session_ids": [],
    },
]


def test_load_longmemeval(tmp_path):
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(LME), encoding="utf-8")
    first, second = load_longmemeval(path)
    assert not first.is_abstention and second.is_abstention
    assert first.evidence_turn_ids() == ["answer_ab12:0"]
    assert second.answer == "12"
    assert [i.question_id for i in iter_instances([first, second], ["temporal-reasoning"])] == ["q2_abs"]
    assert [i.question_id for i in iter_instances([first, second], limit=1)] == ["q1"]
    broken = json.loads(json.dumps(LME))
    broken[0]["haystack_dates"].pop()
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(InputError, match="q1"):
        load_longmemeval(path)


# --------------------------------------------------------------------------------------------
# Run log and manifest
# --------------------------------------------------------------------------------------------


def test_runlog_partial_tail_and_corrupt_rows(tmp_path, samples):
    out = tmp_path / "run"
    _run(samples, out, [OracleSystem()], limit=2)
    log_path = out / LOG_NAME
    with log_path.open("a", encoding="utf-8") as fh:
        fh.write('{"qid": "conv-a#2", "sys')  # a crash mid-row
    assert len(read_rows(log_path)) == 2  # the unfinished row is ignored
    RunLog(log_path)  # opening for append cuts it off
    assert log_path.read_bytes().endswith(b"\n")
    with log_path.open("a", encoding="utf-8") as fh:
        fh.write("garbage\n")
    with pytest.raises(InputError, match="corrupt log row"):
        read_rows(log_path)


def test_manifest_contents(tmp_path, samples, locomo_path):
    out = tmp_path / "run"
    _run(
        samples, out, [OracleSystem()], categories=[4], dataset_path=locomo_path,
        manifest_extra={"models": {"reader": "offline"}, "seed": 3, "budget": 2000, "note": "x"},
    )  # fmt: skip
    m = read_manifest(out)
    assert m.dataset_sha256 == dataset_sha256(locomo_path)
    assert m.models == {"reader": "offline"} and m.seed == 3 and m.budget == 2000
    assert m.extra == {"note": "x"}
    assert m.categories == [4] and m.n_questions == 4 and m.systems == ["oracle"]
    assert "judge.md" in m.prompts and m.prompts == prompt_hashes()
    assert "pydantic" in m.packages and m.python
    assert len(m.invocations) == 1
    _run(samples, out, [KeywordSystem()], categories=[4], dataset_path=locomo_path)
    m2 = read_manifest(out)
    assert len(m2.invocations) == 2 and m2.systems == ["oracle", "keyword"]


def test_resume_refuses_other_data(tmp_path, samples):
    out = tmp_path / "run"
    _run(samples, out, [OracleSystem()], limit=1)
    changed = [s.model_copy(deep=True) for s in samples]
    changed[0].qa[0].question = "Something else?"
    with pytest.raises(ConflictError):
        _run(changed, out, [OracleSystem()], limit=1)


# --------------------------------------------------------------------------------------------
# Harness end to end
# --------------------------------------------------------------------------------------------


def test_end_to_end_rows_report_and_plots(tmp_path, samples):
    out = tmp_path / "run"
    report = _run(samples, out, [OracleSystem(), KeywordSystem()])
    rows = read_rows(out / LOG_NAME)
    assert len(rows) == 2 * N_QUESTIONS
    oracle = {r.qid: r for r in rows if r.system == "oracle"}
    assert all(r.score == 1.0 for r in oracle.values())  # gold vs gold, abstention on category 5
    assert oracle["conv-a#1"].gold == "2022" and oracle["conv-a#2"].bleu1 == 1.0
    assert oracle["conv-a#4"].bleu1 is None
    kw = {r.qid: r for r in rows if r.system == "keyword"}
    assert kw["conv-a#3"].prediction == "I adopted a cat named Miso." and kw["conv-a#3"].score == 0.333
    assert kw["conv-a#3"].retrieval["recall@5"] == 1.0 and kw["conv-a#2"].retrieval["recall@5"] is None
    assert kw["conv-a#3"].usage.by_role["reader"].llm_calls == 1

    text = report.read_text(encoding="utf-8")
    assert report.name == "report.md"
    assert OFFLINE_READER_LINE in text.split("\n")[2]
    for section in ("## Official LoCoMo score", "## Headline", "## BLEU-1", "## Retrieval", "## Cost",
                    "## Significance", "## Plots"):  # fmt: skip
        assert section in text
    assert "## LLM judge" not in text  # no judge given
    assert text.count(category_mapping_line()) >= 4  # under every table
    assert "| 4 single-hop | 1 multi-hop | 2 temporal | 3 open-domain | 5 adversarial |" in text
    assert "| oracle | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 9 |" in text
    retrieval = text[text.index("## Retrieval") : text.index("## Cost")]
    assert "| keyword |" in retrieval and "| oracle |" not in retrieval
    assert (
        "| keyword | reader | offline |" in text and "| keyword | read |" in text
    )  # tokens by role and model, stage latency
    for png in (PLOT_BY_CATEGORY, PLOT_VS_CONTEXT):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"


def test_resume_skips_done_rows(tmp_path, samples):
    out = tmp_path / "run"
    first = OracleSystem()
    _run(samples, out, [first], limit=3)
    assert first.calls == 3
    (start,) = read_manifest(out).invocations
    assert start.finished_at is not None and start.seconds is not None and start.seconds >= 0
    assert "Run time: 1 start(s)" in (out / "report.md").read_text()
    second = OracleSystem()
    _run(samples, out, [second])
    assert second.calls == N_QUESTIONS - 3
    third = OracleSystem()
    _run(samples, out, [third])
    assert third.calls == 0
    lines = (out / LOG_NAME).read_text(encoding="utf-8").splitlines()
    assert len(lines) == N_QUESTIONS  # one row per question, nothing duplicated


def test_errors_are_rows_scored_zero(tmp_path, samples):
    out = tmp_path / "run"
    report = _run(samples, out, [BrokenSystem("broken"), PrepareFails("noprep")])
    rows = {(r.system, r.qid): r for r in read_rows(out / LOG_NAME)}
    assert len(rows) == 2 * N_QUESTIONS
    failed = rows[("broken", "conv-a#3")]
    assert failed.status == "error" and failed.score == 0.0 and failed.error == "RuntimeError: boom"
    assert rows[("broken", "conv-a#0")].status == "ok"
    noprep = [r for (s, q), r in rows.items() if s == "noprep" and q.startswith("conv-b")]
    assert len(noprep) == 3 and all(r.status == "error" and r.score == 0 for r in noprep)
    assert noprep[0].error == "prepare failed: ValueError: cannot ingest"
    assert "## Errors" in report.read_text(encoding="utf-8")
    fixed = OracleSystem("broken")  # same name, now working: only the failed row is asked again
    _run(samples, out, [fixed], retry_errors=True)
    assert fixed.calls == 1
    rows = {(r.system, r.qid): r for r in read_rows(out / LOG_NAME)}
    assert rows[("broken", "conv-a#3")].status == "ok" and rows[("broken", "conv-a#3")].score == 1.0
    raw = (out / LOG_NAME).read_text(encoding="utf-8").splitlines()
    assert len(raw) == 2 * N_QUESTIONS + 1  # the failed row is superseded, never deleted


def test_two_runs_give_identical_tables(tmp_path, samples):
    a = _run(samples, tmp_path / "a", [OracleSystem(), KeywordSystem()])
    b = _run(samples, tmp_path / "b", [OracleSystem(), KeywordSystem()])
    assert _body(a) == _body(b)


def test_judge_scoring(tmp_path, samples):
    seen = []

    def judge(question: str, gold: str, prediction: str) -> JudgeVerdict:
        seen.append(question)
        if "Paris" in question:
            raise LLMError("judge down")
        return JudgeVerdict(
            correct=gold.lower() in prediction.lower(), usage=Usage(llm_calls=1, prompt_tokens=50)
        )

    out = tmp_path / "run"
    report = _run(samples, out, [OracleSystem(), KeywordSystem(), BrokenSystem("broken")], judge=judge)
    rows = {(r.system, r.qid): r for r in read_rows(out / LOG_NAME)}
    assert rows[("oracle", "conv-a#3")].judge_correct is True
    assert rows[("keyword", "conv-a#3")].judge_correct is True  # 'miso' is in the turn
    assert rows[("oracle", "conv-a#4")].judge_correct is None  # category 5 is not judged
    assert rows[("oracle", "conv-a#1")].judge_error == "LLMError: judge down"
    assert rows[("broken", "conv-a#3")].judge_correct is False  # a failed answer is WRONG, unasked
    assert len(seen) == 2 * 7 + 6  # categories 1-4 only
    text = report.read_text(encoding="utf-8")
    assert "## LLM judge J" in text and "J (cats 1–4)" in text and "Judge cost" in text


def test_judge_prompt_and_parsing():
    prompt = render_judge_prompt("Q {x}?", "gold", "pred")
    assert (
        "Question: Q {x}?" in prompt and "Gold answer: gold" in prompt and "Generated answer: pred" in prompt
    )
    assert parse_judge_verdict("same date.\nVERDICT: CORRECT") is True
    assert parse_judge_verdict("VERDICT: **WRONG**") is False
    assert parse_judge_verdict('{"label": "CORRECT"}') is True
    assert parse_judge_verdict("It is INCORRECT") is False
    with pytest.raises(LLMError):
        parse_judge_verdict("maybe")


def test_chat_judge_uses_a_chat_model():
    class FakeChat:
        model = "fake"

        def chat(self, role, messages, **kw):
            assert (
                role == "judge" and kw["temperature"] == 0.0 and "Gold answer: Miso" in messages[0]["content"]
            )
            call = LLMCall(role=role, model="fake", backend="openai", prompt_tokens=120, completion_tokens=6)
            return SimpleNamespace(text="Names match.\nVERDICT: CORRECT", call=call)

    verdict = chat_judge(FakeChat())("Cat's name?", "Miso", "It is Miso")
    assert verdict.correct and verdict.usage.prompt_tokens == 120 and not verdict.usage.offline


def test_systems_must_have_unique_names(tmp_path, samples):
    with pytest.raises(InputError):
        _run(samples, tmp_path / "x", [OracleSystem(), OracleSystem()])
    assert isinstance(KeywordSystem(), EvalSystem)


def test_activate_option_bounds_the_segments_deep_reads(tmp_path, locomo_path):
    from typer.testing import CliRunner

    from emem.cli import app

    def run(*extra: str) -> tuple[list[dict], dict]:
        out = tmp_path / f"run{len(extra)}"
        args = [
            "eval",
            "locomo",
            "--data",
            str(locomo_path),
            "--systems",
            "emem-deep",
            "--out",
            str(out),
            *extra,
        ]
        result = CliRunner().invoke(app, [*args, "--home", str(tmp_path / "home")])
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in (out / LOG_NAME).read_text().splitlines()]
        return rows, json.loads((out / "manifest.json").read_text())

    rows, manifest = run()
    assert manifest["extra"]["activate"] == 5 and max(len(r["retrieved_sessions"]) for r in rows) == 2
    rows, manifest = run("--activate", "1")
    # One segment per routing hop (deep routes twice: the second hop from what the first found).
    assert manifest["extra"]["activate"] == 1
    assert max(n for r in rows for n in r["usage"]["segments_per_hop"]) == 1
    assert max(len(r["retrieved_sessions"]) for r in rows) <= 2
    assert "activate: 1" in (tmp_path / "run2" / "report.md").read_text()
    plain = rows
    rows, manifest = run("--activate", "1", "--fill-context")
    assert manifest["extra"]["fill_context"] is True
    # Offline deep already fills the budget best-first; the fill never takes context away.
    assert sum(r["context_tokens"] for r in rows) >= sum(r["context_tokens"] for r in plain)


def test_cli_sample_spread_is_used_and_recorded(tmp_path, locomo_path):
    from typer.testing import CliRunner

    from emem.cli import app

    out = tmp_path / "run"
    args = ["eval", "locomo", "--data", str(locomo_path), "--systems", "rag-bm25", "--out", str(out),
            "--categories", "4", "--per-category", "2", "--sample", "spread", "--home", str(tmp_path / "home")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / LOG_NAME).read_text().splitlines()]
    assert sorted(r["qid"] for r in rows) == ["conv-a#3", "conv-b#0"]
    assert json.loads((out / "manifest.json").read_text())["extra"]["sample"] == "spread"
    bad = CliRunner().invoke(app, [*args[:-4], "--sample", "random", "--out", str(tmp_path / "bad")])
    assert bad.exit_code != 0 and "sample must be" in bad.output


# --------------------------------------------------------------------------------------------
# The public log: scores without LoCoMo's text, committed, resumed from, reported from
# --------------------------------------------------------------------------------------------


def _dataset_strings() -> list[str]:
    """Every question, answer and turn text of the fixture (numbers alone could match a hash)."""
    texts = []
    for s in FIXTURE:
        for key, turns in s["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                texts += [t["text"] for t in turns] + [
                    t["blip_caption"] for t in turns if "blip_caption" in t
                ]
        for qa in s["qa"]:
            texts.append(qa["question"])
            texts += [str(qa[k]) for k in ("answer", "adversarial_answer") if k in qa]
    return [t for t in texts if not t.isdigit()]


class HopTermsKeyword(KeywordSystem):
    """Keyword answers that also report words of the conversation as deep's hop terms."""

    name = "hops"

    def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
        out = super().answer(question, sample_id, category)
        out.usage.hop_terms = out.prediction.split()
        return out


class SaysWhatItRead(OracleSystem):
    """Fails on one question with a message that quotes the question (as an LLM error can)."""

    def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
        if "Paris" in question:
            raise LLMError(f"no answer in the reply to {question!r}")
        if "violin" in self.table.get(question, ""):
            return SystemOutput(prediction="", status="error", error=f"reader gave up on {question}")
        return super().answer(question, sample_id, category)


def _quoting_judge(question: str, gold: str, prediction: str) -> JudgeVerdict:
    if "Miso" in gold:
        raise LLMError(f"judge reply has no CORRECT/WRONG verdict: 'the gold {gold} vs {prediction}'")
    return JudgeVerdict(correct=gold.lower() in prediction.lower(), usage=Usage(llm_calls=1))


class StopsAfter(OracleSystem):
    """Answers `n` questions, then the run is stopped (as a session's end or Ctrl-C stops it)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
        if self.calls == self.n:
            raise KeyboardInterrupt
        return super().answer(question, sample_id, category)


class AskedLog(OracleSystem):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
        self.asked.append(question)
        return super().answer(question, sample_id, category)


def test_public_row_fields_are_the_run_row_without_dataset_text():
    from emem.eval.runlog import DATASET_TEXT, PublicRow, RunRow

    dropped = {k for k, v in DATASET_TEXT.items() if v is True}
    assert dropped == {"question", "gold", "prediction", "error", "judge_error"}
    kept_as_class = {"error", "judge_error"}  # the exception class only
    assert set(PublicRow.model_fields) - {"kind"} == (set(RunRow.model_fields) - dropped) | kept_as_class


def test_public_log_holds_no_dataset_text(tmp_path, samples, locomo_path):
    from emem.eval.runlog import PublicLog

    out, public = tmp_path / "run", tmp_path / "repo" / "scores.jsonl"
    systems = [
        OracleSystem(),
        KeywordSystem(),
        HopTermsKeyword(),
        SaysWhatItRead("quotes"),
        PrepareFails("noprep"),
    ]
    _run(samples, out, systems, judge=_quoting_judge, dataset_path=locomo_path, public_log=public)
    private, data = (out / LOG_NAME).read_bytes(), public.read_bytes()
    texts = _dataset_strings()
    assert len(texts) > 20
    seen_in_rows = [t for t in texts if t.encode() in private]
    assert len(seen_in_rows) > 10  # the private log quotes the data, so the check below can fail
    leaked = [t for t in texts if t.encode() in data or json.dumps(t)[1:-1].encode() in data]
    assert leaked == []

    rows = {r.key: r for r in PublicLog(public).rows()}
    assert len(rows) == len(systems) * N_QUESTIONS
    assert rows[("quotes", "conv-a#1")].error == "LLMError"  # the class, not the message
    assert rows[("quotes", "conv-b#0")].error == "error"  # a self-reported failure names no class
    assert rows[("noprep", "conv-b#0")].error == "prepare failed: ValueError"
    assert rows[("oracle", "conv-a#3")].judge_error == "LLMError"
    kw = rows[("keyword", "conv-a#3")]
    assert kw.score == 0.333 and kw.retrieved_ids and kw.evidence == ["D1:3"] and kw.category == 4
    assert kw.retrieval["recall@5"] == 1.0 and kw.usage.by_role["reader"].llm_calls == 1
    assert kw.latency_ms == 2.0 and kw.stage_latency_ms == {"retrieve": 0.5, "read": 1.5}
    assert rows[("hops", "conv-a#3")].usage.hop_terms == []
    assert PublicLog(public).manifest().dataset_sha256 == dataset_sha256(locomo_path)


def test_stopped_run_resumes_from_the_public_log_alone(tmp_path, samples, locomo_path):
    from emem.eval.runlog import PublicLog

    out, public = tmp_path / "machine1", tmp_path / "repo" / "scores.jsonl"
    with pytest.raises(KeyboardInterrupt):
        _run(samples, out, [StopsAfter(4)], dataset_path=locomo_path, public_log=public)
    assert len(PublicLog(public).rows()) == 4
    done = {r.qid for r in PublicLog(public).rows()}

    # A fresh machine: only the committed public log (and the dataset) survive.
    fresh = tmp_path / "machine2"
    second = AskedLog()
    report = _run(samples, fresh, [second], dataset_path=locomo_path, public_log=public)
    by_question = {q.question: q.qid for q in iter_questions(samples)}
    assert len(second.asked) == N_QUESTIONS - 4
    assert {by_question[q] for q in second.asked} == set(by_question.values()) - done
    assert len(read_rows(fresh / LOG_NAME)) == N_QUESTIONS - 4  # rows.jsonl: this machine's rows only

    rows = PublicLog(public).rows()
    assert len(rows) == N_QUESTIONS and all(r.score == 1.0 for r in rows)
    first_start, second_start = PublicLog(public).manifest().invocations
    assert first_start.finished_at is None and second_start.finished_at is not None
    text = report.read_text(encoding="utf-8")
    assert "| oracle | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 9 |" in text
    assert "Rows: 4 of 9 read from the public log" in text  # their predictions are not here
    assert "Run time: 2 start(s)" in text

    third = AskedLog()  # nothing left: a rerun asks nothing and the log gains no row
    _run(samples, fresh, [third], dataset_path=locomo_path, public_log=public)
    assert third.asked == []
    lines = [json.loads(x) for x in public.read_text(encoding="utf-8").splitlines()]
    assert sum(1 for x in lines if x["kind"] == "row") == N_QUESTIONS


def test_public_log_takes_rows_logged_before_it(tmp_path, samples):
    from emem.eval.runlog import PublicLog

    out, public = tmp_path / "run", tmp_path / "scores.jsonl"
    _run(samples, out, [OracleSystem()], limit=3)  # started without a public log
    second = OracleSystem()
    _run(samples, out, [second], public_log=public)
    assert second.calls == N_QUESTIONS - 3
    assert len(PublicLog(public).rows()) == N_QUESTIONS


def test_resume_refuses_other_settings(tmp_path, samples, locomo_path):
    out, public = tmp_path / "run", tmp_path / "scores.jsonl"
    settings = {"models": {"reader": "qwen2.5-0.5b"}, "budget": 1000, "activate": 3, "per_category": 20}
    _run(samples, out, [OracleSystem()], limit=2, manifest_extra=settings, public_log=public)
    other = {**settings, "budget": 2000, "activate": 5}
    for where in (out, tmp_path / "fresh"):  # the run's manifest.json, or the public log alone
        with pytest.raises(ConflictError, match=r"budget: 1000 ≠ 2000; activate: 3 ≠ 5"):
            _run(samples, where, [OracleSystem()], manifest_extra=other, public_log=public)
    with pytest.raises(ConflictError, match="cannot resume"):  # without a public log too
        _run(samples, out, [OracleSystem()], manifest_extra={**settings, "models": {"reader": "x"}})
    assert read_rows(tmp_path / "fresh" / LOG_NAME) == []  # refused before asking anything
    again = OracleSystem()  # the logged settings resume
    _run(samples, tmp_path / "fresh", [again], limit=3, manifest_extra=settings, public_log=public)
    assert again.calls == 1


def _cli(*args: str):
    from typer.testing import CliRunner

    from emem.cli import app

    return CliRunner().invoke(app, list(args))


def test_cli_public_log_resume_refusal_and_report(tmp_path, locomo_path):
    public = tmp_path / "repo" / "scores.jsonl"
    base = ["eval", "locomo", "--data", str(locomo_path), "--systems", "rag-bm25,full-context",
            "--public-log", str(public), "--budget", "500"]  # fmt: skip
    first = _cli(*base, "--out", str(tmp_path / "a"), "--home", str(tmp_path / "a-home"))
    assert first.exit_code == 0, first.output
    original = tmp_path / "a" / "report.md"

    # Other settings on a fresh machine: one line naming them, no traceback.
    bad = _cli(*base[:-1], "800", "--out", str(tmp_path / "b"), "--home", str(tmp_path / "b-home"))
    assert bad.exit_code == 2 and "Traceback" not in bad.output, bad.output
    assert "cannot resume" in bad.output and "budget: 500 ≠ 800" in bad.output

    # The report from the public log alone is the run's report.
    rebuilt = _cli("eval", "report", str(tmp_path / "c"), "--public-log", str(public))
    assert rebuilt.exit_code == 0, rebuilt.output
    report = tmp_path / "c" / "report.md"
    assert _body(report) == _body(original)
    assert "read from the public log `scores.jsonl` alone" in report.read_text(encoding="utf-8")
    assert (tmp_path / "c" / PLOT_BY_CATEGORY).read_bytes()[:4] == b"\x89PNG"
    missing = _cli("eval", "report", str(tmp_path / "c"), "--public-log", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 2 and "no such public log" in missing.output
