"""Dense retrieval and segment routing embed the question without the conversation's speaker
names (retrieval.query): the rule itself, and where the read path uses it."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import small_conversation

from emem.memory import Memory
from emem.retrieval.hybrid import hybrid_turns
from emem.retrieval.query import topic_query


@pytest.mark.parametrize(
    ("question", "speakers", "expected"),
    [
        ("What exercises has John done?", ["John", "Maria"], "What exercises has done?"),
        ("What tricks do James's pets know?", ["James"], "What tricks do pets know?"),
        ("What tricks do James’s pets know?", ["James"], "What tricks do pets know?"),
        ("what did maria bake?", ["Maria"], "what did bake?"),
        ("Did Johnny meet John, or not?", ["John"], "Did Johnny meet, or not?"),
        ("Where did Mary Ann move?", ["Mary", "Mary Ann"], "Where did move?"),
        ("What did Jon and Gina both start?", ["Jon", "Gina"], "What did and both start?"),
        ("Where does Dana work?", [], "Where does Dana work?"),
        ("Where does Dana work?", ["Omar"], "Where does Dana work?"),
        # Nothing but a name and stop words would remain: the question is kept as asked.
        ("Who is Caroline?", ["Caroline"], "Who is Caroline?"),
        ("C++ or Dana?", ["C++"], "or Dana?"),
    ],
)
def test_topic_query(question: str, speakers: list[str], expected: str) -> None:
    assert topic_query(question, speakers) == expected


def test_namespace_speakers_are_tracked_per_namespace(tmp_path) -> None:
    with Memory(tmp_path / "home") as m:
        m.add_conversation(small_conversation("c1"), namespace="ns-a")
        m.add_conversation(
            {
                **small_conversation("c2"),
                "sessions": [
                    {
                        "session_id": "S1",
                        "time": "2023-01-01T10:00:00+00:00",
                        "turns": [{"turn_id": "S1:1", "speaker": "Zoe", "text": "I bought a kayak."}],
                    }
                ],
            },
            namespace="ns-b",
        )
        assert m.indexes.current("ns-a").speakers == {"Dana", "Omar"}
        assert m.indexes.current("ns-b").speakers == {"Zoe"}
    with Memory(tmp_path / "home") as m:  # rebuilt from the episode store on reopen
        assert m.indexes.current("ns-a").speakers == {"Dana", "Omar"}


def test_dense_search_and_read_path_use_the_topic_query(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory(tmp_path / "home") as m:
        m.add_conversation(small_conversation(), namespace="ns")
        ns = m.indexes.current("ns")
        seen: list[str] = []
        original = type(ns.dense.embedder).embed

        def spy(self, texts: list[str]):
            seen.extend(texts)
            return original(self, texts)

        # The dense half embeds the topic query, whether scored exactly or by Chroma's index.
        monkeypatch.setattr(type(ns.dense.embedder), "embed", spy)
        hybrid_turns(ns, "Where does Dana work?", 3)
        hybrid_turns(ns, "Where does Dana work?", 3, exact=False)
        m.search("Where does Dana work?", namespace="ns", k=3)
        assert seen == ["Where does work?"] * 3
        monkeypatch.undo()

        runtime = m._runtime()
        view = runtime.view("ns")
        vec = runtime.question_vector(view, "Where does Dana's startup work?")
        expected = m.indexes.embedder.embed(["Where does startup work?"])[0]
        assert np.allclose(vec, expected)

        embedded: list[str] = []
        real_embed = runtime.embed

        def record(text: str) -> np.ndarray:
            embedded.append(text)
            return real_embed(text)

        monkeypatch.setattr(runtime, "embed", record)
        m.ask("Where does Dana work?", namespace="ns", mode="deep")
        # Routing embeds the topic query; scoring turns inside a segment keeps the name, which
        # tells turns apart by who said them.
        assert "Where does work?" in embedded and "Where does Dana work?" in embedded
