"""The HTTP API: schemathesis against its own OpenAPI spec (bounded examples), cross-key
isolation, size limits and JSON errors. Real Memory, real FastAPI app; the fuzzing goes through
the ASGI interface, the isolation test over a socket on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import schemathesis
from conftest import small_conversation
from hypothesis import HealthCheck, given, settings
from servers import serving

from emem.memory import Memory
from emem.server.http_app import KeyRing, build_app

KEY_ALL = "all-namespaces-key-0123456789"
KEY_A = "tenant-a-key-0123456789abcdef"
KEY_B = "tenant-b-key-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY_ALL}"}


@pytest.fixture(scope="module")
def api_app(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("http") / "home"
    with Memory(home) as m:
        m.add_conversation(small_conversation(), namespace="demo")
        yield build_app(
            m, KeyRing({KEY_ALL: "*", KEY_A: ["tenant-a"], KEY_B: ["tenant-b"]}), max_body_bytes=64_000
        )


def test_api_conforms_to_its_own_spec(api_app) -> None:
    """Every operation, positive and negative examples, all of schemathesis' response checks
    (status codes and bodies as documented, no 5xx, auth enforced). Driven through hypothesis
    directly: schemathesis' pytest plugin does not load under this pytest."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", api_app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 7
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=12,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        def check(case) -> None:
            case.call_and_validate(headers=AUTH)

        check()


def post(client: httpx.Client, op: str, key: str | None, body: dict) -> httpx.Response:
    headers = {"X-API-Key": key} if key else {}
    return client.post(f"/v1/{op}", json=body, headers=headers)


def test_keys_are_isolated_and_leak_nothing(tmp_path: Path) -> None:
    with Memory(tmp_path / "home") as m:
        app = build_app(m, KeyRing({KEY_A: ["tenant-a"], KEY_B: ["tenant-b"]}))
        with serving(app) as url, httpx.Client(base_url=url, timeout=60) as c:
            assert (
                post(
                    c, "remember", KEY_A, {"namespace": "tenant-a", "text": "Tenant A's launch code is 4417."}
                ).status_code
                == 200
            )
            assert (
                post(
                    c, "remember", KEY_B, {"namespace": "tenant-b", "text": "Tenant B likes jazz."}
                ).status_code
                == 200
            )
            requests = {
                "remember": {"text": "planted"},
                "search": {"query": "launch code"},
                "ask": {"question": "What is the launch code?", "mode": "fast"},
                "facts": {},
                "history": {"subject": "Tenant A"},
                "forget": {"conversation_id": "default"},
            }
            for op, body in requests.items():
                existing = post(c, op, KEY_B, {"namespace": "tenant-a", **body})
                missing = post(c, op, KEY_B, {"namespace": "tenant-zzz", **body})
                assert existing.status_code == missing.status_code == 403, op
                assert existing.json() == missing.json(), op  # not even existence leaks
                assert "4417" not in existing.text
            # B's own reads never see A's turns
            hits = post(
                c, "search", KEY_B, {"namespace": "tenant-b", "query": "launch code 4417", "k": 10}
            ).json()["hits"]
            assert all("4417" not in h["text"] for h in hits)
            # A is untouched by B's attempts (no planted turn, nothing erased)
            texts = [t.text for t in m.episodes.turns("tenant-a")]
            assert texts == ["Tenant A's launch code is 4417."]
            assert post(c, "search", None, {"namespace": "tenant-a", "query": "x"}).status_code == 401
            assert (
                post(
                    c, "search", "not-a-key-at-all-xxxxxxxx", {"namespace": "tenant-a", "query": "x"}
                ).status_code
                == 401
            )


def test_errors_are_json_and_bodies_are_bounded(tmp_path: Path) -> None:
    with Memory(tmp_path / "home") as m:
        app = build_app(m, KeyRing({KEY_ALL: "*"}), max_body_bytes=2000)
        with serving(app) as url, httpx.Client(base_url=url, timeout=60) as c:
            big = post(c, "remember", KEY_ALL, {"namespace": "n", "text": "x" * 5000})
            assert big.status_code == 413 and big.json()["error"]["type"] == "too_large"
            chunked = c.post(
                "/v1/remember", content=iter([b'{"namespace": "n", "text": "', b"y" * 3000, b'"}']),
                headers={"X-API-Key": KEY_ALL, "Content-Type": "application/json"},
            )  # fmt: skip
            assert chunked.status_code == 413
            bad = post(c, "search", KEY_ALL, {"namespace": "n", "query": "", "k": 0, "colour": "red"})
            assert bad.status_code == 422
            message = bad.json()["error"]["message"]
            assert "query" in message and "k" in message and "colour" in message
            empty = post(c, "ask", KEY_ALL, {"namespace": "n", "question": "anything?"})
            assert empty.status_code == 404 and empty.json()["error"] == {
                "type": "not_found", "message": "namespace 'n' does not exist"
            }  # fmt: skip
            broken = c.post(
                "/v1/search",
                content=b"{not json",
                headers={"X-API-Key": KEY_ALL, "Content-Type": "application/json"},
            )
            assert broken.status_code == 422 and "error" in broken.json()
            assert m.episodes.turns("n") == []
            spec = c.get("/openapi.json").json()
            assert {p for p in spec["paths"]} >= {
                f"/v1/{op}" for op in ("remember", "search", "ask", "facts", "history", "forget")
            }
