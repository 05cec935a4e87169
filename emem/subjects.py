"""Who is the user: speaker roles and the subjects a question is about (pure; the one place for it).

In the dominant real use an agent talks with one user: speakers are "user" and "assistant" (or
the user's name and the agent's name), and questions say "the user", "I", "my" or "you". What the
user says about themself is filed under the user's subject, which is the user's speaker name
("user"); a name the user tells ("my name is Priya") is an alias of that subject, recorded as the
`name` fact. What the agent says is not a fact about the user. In conversations between named
people (LoCoMo), everyone is a person and the subject of their own first-person statements.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Literal

from emem.extract.entities import NOT_NAMES, AliasResolver
from emem.ledger.predicates import subject_key

Role = Literal["user", "agent", "person"]

USER_NAMES = frozenset({"user", "human", "me", "customer", "client", "the user", "you"})
"""Speaker labels that denote the user (matched case- and space-insensitively)."""
AGENT_NAMES = frozenset(
    {"assistant", "ai", "agent", "bot", "system", "chatbot", "the assistant", "model", "gpt"}
)
"""Speaker labels that denote the agent."""


def _label(speaker: str) -> str:
    return re.sub(r"[\s_-]+", " ", speaker.strip().casefold())


def speaker_roles(speakers: Sequence[str], *, agent_names: Iterable[str] = ()) -> dict[str, Role]:
    """Role of each speaker: user, agent or person.

    user/human/me/customer/client are the user; assistant/ai/agent/bot/system (and any name in
    `agent_names`, e.g. an agent that introduced itself as "Nova") are the agent; anyone else is a
    person. When an agent speaks with exactly one other speaker and nobody is labelled user, that
    speaker is the user ("Priya" talking with "assistant").

    Args:
        speakers: the speaker names of a conversation (repeats are fine).
        agent_names: names the conversation says the agent goes by.

    Returns:
        speaker name (as given) -> role.
    """
    agents = {_label(a) for a in agent_names} | AGENT_NAMES
    roles: dict[str, Role] = {}
    for s in speakers:
        if s in roles:
            continue
        label = _label(s)
        roles[s] = "user" if label in USER_NAMES else "agent" if label in agents else "person"
    persons = [s for s, r in roles.items() if r == "person"]
    if "user" not in roles.values() and "agent" in roles.values() and len(persons) == 1:
        roles[persons[0]] = "user"
    return roles


def user_speaker(speakers: Sequence[str], *, agent_names: Iterable[str] = ()) -> str | None:
    """The user's speaker name (their subject), or None when no speaker is the user."""
    return next((s for s, r in speaker_roles(speakers, agent_names=agent_names).items() if r == "user"), None)


def agent_speaker(speakers: Sequence[str], *, agent_names: Iterable[str] = ()) -> str | None:
    """The agent's speaker name (its subject), or None."""
    return next(
        (s for s, r in speaker_roles(speakers, agent_names=agent_names).items() if r == "agent"), None
    )


_SELF = re.compile(r"\b(?:I|I'm|I've|I'd|my|me|mine|myself|we|our|us)\b")
_TO_OTHER = re.compile(r"\b(?:you|your|yours|yourself)\b|\?", re.IGNORECASE)


def likely_user(turns: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """(user, agent) of a two-speaker conversation whose labels say neither ("Joaquin" talking
    with "Juno"), from how each speaks: the user talks about themself, the agent asks and answers
    about "you". None unless one speaker clearly does the first and the other the second, so a
    conversation between two friends who both talk about themselves keeps no user.

    Args:
        turns: (speaker, text) of the conversation's turns.

    Returns:
        (user speaker, agent speaker), or None.
    """
    speakers = list(dict.fromkeys(s for s, _ in turns))
    roles = speaker_roles(speakers)
    if len(speakers) != 2 or any(r != "person" for r in roles.values()):
        return None
    rate: dict[str, tuple[float, float, float]] = {}
    for s in speakers:
        said = [t for sp, t in turns if sp == s]
        n = max(len(said), 1)
        self_ = sum(len(_SELF.findall(t)) for t in said) / n
        other = sum(len(_TO_OTHER.findall(t)) for t in said) / n
        acks = sum(bool(_ACKNOWLEDGES.search(t)) for t in said) / n
        rate[s] = (self_, other, acks)
    echo = _echo_rates(turns)
    a, b = speakers
    for user, agent in ((a, b), (b, a)):
        (u_self, u_other, u_ack), (g_self, g_other, g_ack) = rate[user], rate[agent]
        if u_self >= 0.5 and u_self >= 3 * g_self and g_other >= g_self and u_self > u_other:
            return user, agent
        # An agent that keeps a memory says so ("Noted.", "Saved 06 4127 8830.", "I'll remember"),
        # and may speak of itself as much as to the user; friends seldom acknowledge each other so.
        if g_ack >= 0.3 and u_ack <= g_ack / 4 and u_self >= 0.5 and u_self > g_self:
            return user, agent
        # An agent that keeps a memory repeats back what it was told ("A shared flat in Upper
        # Bangor; funding until September 2026."); a friend answers with news of their own.
        if echo[agent] >= 0.35 and echo[user] <= 0.1 and u_self >= 0.5 and u_self > 2 * g_self:
            return user, agent
    return None


_WORD = re.compile(r"[A-Za-z][a-z'’-]{3,}")
_COMMON = frozenset(
    "that this with have from they them what when your just been were will would there their about "
    "which also into really thanks thank".split()
)


def _echo_rates(turns: Sequence[tuple[str, str]]) -> dict[str, float]:
    """Speaker -> the mean share of the longer words of their replies that repeat the turn they
    answer."""
    shares: dict[str, list[float]] = {s: [] for s, _ in turns}
    for (prev_speaker, prev), (speaker, text) in zip(turns, turns[1:], strict=False):
        words = {w.lower() for w in _WORD.findall(text)} - _COMMON
        if speaker != prev_speaker and words:
            heard = {w.lower() for w in _WORD.findall(prev)}
            shares[speaker].append(len(words & heard) / len(words))
    return {s: sum(v) / len(v) if v else 0.0 for s, v in shares.items()}


_ACKNOWLEDGES = re.compile(
    r"^\W*(?:got it|noted|saved|understood)\b|\b(?:noted|saved|updated)[,.!]"
    r"|\b(?:noted|saved|updated|added)\s+(?:that|it|this|for|to|your|the)\b"
    r"|\bI['’]?ll\s+(?:remember|note|keep|add|update|save|remind)\b"
    r"|\bI['’]?ve\s+(?:noted|saved|updated|added|forgotten|deleted|removed|changed)\b"
    r"|\bI\s+won['’]?t\s+(?:mix|forget|mention|bring)\b|\byour\s+assistant\b",
    re.IGNORECASE,
)
"""What an agent that keeps a memory says when told something."""


_USER_WORDS = re.compile(r"\b(?:the\s+user(?:'s)?|I|me|my|mine|myself|we|us|our|ours)\b", re.IGNORECASE)
_AGENT_WORDS = re.compile(
    r"\b(?:you|your|yours|yourself)\b|\bthe\s+(?:assistant|agent)(?:'s)?\b", re.IGNORECASE
)
_CAPITALISED = re.compile(r"\b[A-Z][^\W\d_A-Z]+(?:-[A-Z][^\W\d_A-Z]+)?\b")
"""A capitalised word, accents included ("Sofía", "Zoë")."""


def question_subjects(
    question: str,
    speakers: Sequence[str],
    known_subjects: Sequence[str],
    *,
    aliases: Mapping[str, str] | None = None,
    agent_names: Iterable[str] = (),
    relatives: Mapping[str, Sequence[str]] | None = None,
    relatives_for: Callable[[str], Mapping[str, Sequence[str]]] | None = None,
    inferred: tuple[str, str] | None = None,
) -> list[str]:
    """The subjects a question is about, in order of mention.

    "the user", "I", "my", "me", "mine", "myself" are the user's subject; "you"/"your" the
    agent's; a named person maps to a speaker or a known subject ("Mel" to "Melanie" when the
    conversation supports it, as emem.extract.entities decides); an alias (a name the user told,
    see `name_aliases`) maps to the subject it names.

    Args:
        question: the question as asked.
        speakers: the speaker names of the namespace's conversations.
        known_subjects: subjects the ledger holds facts about.
        aliases: told name -> subject (e.g. {"Priya": "user"}).
        agent_names: names the agent goes by.
        relatives: the user's named relatives and pets by kind (`relatives_of`), so that "my sister"
            also maps to "Ana" and "my dog" to "Max".
        relatives_for: subject -> their relatives by kind, so that "Lena's sister" maps to Ana.
        inferred: (user, agent) from `likely_user` when no speaker label says who is the user.

    Returns:
        Subject display names, without repeats.
    """
    roles = speaker_roles(speakers, agent_names=agent_names)
    user = next((s for s, r in roles.items() if r == "user"), None)
    agent = next((s for s, r in roles.items() if r == "agent"), None)
    if user is None and agent is None and inferred is not None:
        user, agent = inferred
    alias_of = {subject_key(k): v for k, v in (aliases or {}).items()}
    resolver = AliasResolver([*speakers, *known_subjects])
    hits: list[tuple[int, str]] = []
    if user is not None:
        hits += [(m.start(), user) for m in _USER_WORDS.finditer(question)]
        for m in _MY_KIN.finditer(question):
            kin = _KIN_WORDS.get(m.group("kin").casefold(), m.group("kin").casefold())
            hits += [(m.start("kin"), name) for name in (relatives or {}).get(kin, ())]
    if relatives_for is not None and not _ASKS_WHO.search(question):
        for m in _NAMED_KIN.finditer(question):
            owner = alias_of.get(subject_key(m.group("owner"))) or resolver.canonical(m.group("owner"))
            if owner.casefold() in NOT_NAMES:
                continue
            kin = _KIN_WORDS.get(m.group("kin").casefold(), m.group("kin").casefold())
            hits += [(m.start("kin"), name) for name in relatives_for(owner).get(kin, ())]
    if agent is not None:
        hits += [(m.start(), agent) for m in _AGENT_WORDS.finditer(question)]
    for m in _CAPITALISED.finditer(question):
        word = m.group(0)
        if word.casefold() in NOT_NAMES or word == "I":
            continue
        if subject_key(word) in alias_of:
            hits.append((m.start(), alias_of[subject_key(word)]))
            continue
        name = resolver.canonical(word)
        if resolver.is_speaker(name) or subject_key(name) in {subject_key(s) for s in known_subjects}:
            hits.append((m.start(), name))
    out: list[str] = []
    for _, subject in sorted(hits, key=lambda h: h[0]):
        if subject not in out:
            out.append(subject)
    return out


def name_aliases(ledger: object, namespace: str) -> dict[str, str]:
    """Told names as aliases: {"Priya": "user"} from the current `name` facts of a namespace.

    Args:
        ledger: an emem.ledger.store.Ledger.
        namespace: the tenant.

    Returns:
        name -> subject it is an alias of (subjects whose name is their own are left out).
    """
    out: dict[str, str] = {}
    for res in ledger.facts(namespace, predicate="name"):  # type: ignore[attr-defined]
        for value in res.values:
            if subject_key(value) != subject_key(res.subject):
                out[value] = res.subject
    return out


_KIN_WORDS = {
    "mom": "mother",
    "mum": "mother",
    "mommy": "mother",
    "dad": "father",
    "daddy": "father",
    "kid": "child",
    "kids": "child",
    "children": "child",
    "sons": "son",
    "daughters": "daughter",
    "sisters": "sister",
    "brothers": "brother",
    "siblings": "sibling",
    "puppy": "dog",
    "kitten": "cat",
    "pets": "pet",
    "parents": "parent",
    "spouse": "partner",
}
_MY_KIN = re.compile(
    r"\b(?:my|the\s+user's)\s+(?:(?:older|younger|little|big|baby|twin|oldest|youngest|eldest)\s+)?"
    r"(?P<kin>[^\W\d_]+)",
    re.IGNORECASE,
)
_NAMED_KIN = re.compile(
    r"\b(?P<owner>[A-Z][a-z]+)'s\s+(?:(?:older|younger|little|big|baby|twin|oldest|youngest|eldest)\s+)?"
    r"(?P<kin>[^\W\d_A-Z]+)"
)
"""A named person's relative or pet ("Lena's sister", "Theo's dog")."""
_ASKS_WHO = re.compile(r"\b(?:called|named?|names|who)\b", re.IGNORECASE)
"""A question asking who a relative or pet is: their name is the answer, not who it is about."""
_KIN_PREDICATES = ("has_partner", "has_child", "has_sibling", "has_parent", "has_pet")
_GENERAL = {
    "has_partner": "partner",
    "has_child": "child",
    "has_sibling": "sibling",
    "has_parent": "parent",
    "has_pet": "pet",
}


def relatives_of(
    ledger: object, namespace: str, subject: str, at: datetime | None = None
) -> dict[str, list[str]]:
    """The subject's named relatives and pets by kind, from the ledger's current facts:
    {"sister": ["Ana"], "sibling": ["Ana"], "dog": ["Max"], "pet": ["Max"], "husband": ["Tom"], ...}.

    Args:
        ledger: an emem.ledger.store.Ledger.
        namespace: the tenant.
        subject: whose relatives (the user's subject).
        at: the present the question is read at (valid and known then); None: the wall clock.
            A conversation dated after the wall clock names its relatives after it.

    Returns:
        kind -> names, for `question_subjects(..., relatives=...)`.
    """
    from emem.ledger.predicates import named_value

    out: dict[str, list[str]] = {}
    facts = ledger.facts(namespace, subject=subject, valid_at=at, known_at=at)  # type: ignore[attr-defined]
    for res in facts:
        if res.predicate not in _KIN_PREDICATES:
            continue
        for value in res.values:
            name = named_value(value)
            if name is None:
                continue
            kind = re.sub(r"^(?:an?|the)\s+", "", value.split(" named ")[0].strip().casefold())
            for key in dict.fromkeys(
                (kind, kind.split()[-1], _KIN_WORDS.get(kind, kind), _GENERAL[res.predicate])
            ):
                out.setdefault(key, [])
                if name not in out[key]:
                    out[key].append(name)
    return out
