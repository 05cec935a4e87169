"""Entity identity: which names in a conversation denote the same person.

Facts are keyed by subject, so "Mel" and "Melanie" must land on one key or the ledger splits a
person in two. Merging is conservative: a name joins a known speaker only when it is that speaker's
name, first name, a prefix of it or a listed nickname, and only when exactly one speaker fits; two
speakers are never merged. Names that are not speakers merge only into a fuller name that the
conversation itself mentions.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from emem.models import Turn

# nickname -> formal names it commonly shortens.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "bob": ("robert",),
    "bobby": ("robert",),
    "rob": ("robert",),
    "robbie": ("robert",),
    "bill": ("william",),
    "billy": ("william",),
    "will": ("william",),
    "liam": ("william",),
    "liz": ("elizabeth",),
    "beth": ("elizabeth", "bethany"),
    "betty": ("elizabeth",),
    "lizzie": ("elizabeth",),
    "kate": ("katherine", "catherine", "kathryn"),
    "katie": ("katherine", "catherine", "kathryn"),
    "kathy": ("katherine", "kathryn"),
    "cathy": ("catherine",),
    "kat": ("katherine", "katrina"),
    "jon": ("jonathan", "john"),
    "johnny": ("john", "jonathan"),
    "jack": ("john", "jackson"),
    "jim": ("james",),
    "jimmy": ("james",),
    "jamie": ("james",),
    "mike": ("michael",),
    "mikey": ("michael",),
    "mick": ("michael",),
    "dave": ("david",),
    "davy": ("david",),
    "dan": ("daniel",),
    "danny": ("daniel",),
    "tom": ("thomas",),
    "tommy": ("thomas",),
    "chris": ("christopher", "christine", "christina", "christian"),
    "alex": ("alexander", "alexandra"),
    "sam": ("samuel", "samantha"),
    "sammy": ("samuel", "samantha"),
    "nick": ("nicholas", "nicolas"),
    "matt": ("matthew",),
    "steve": ("steven", "stephen"),
    "joe": ("joseph",),
    "joey": ("joseph",),
    "tony": ("anthony",),
    "andy": ("andrew",),
    "drew": ("andrew",),
    "ben": ("benjamin",),
    "benny": ("benjamin",),
    "jen": ("jennifer",),
    "jenny": ("jennifer",),
    "jess": ("jessica",),
    "jessie": ("jessica",),
    "meg": ("megan", "margaret"),
    "maggie": ("margaret",),
    "peggy": ("margaret",),
    "sue": ("susan", "suzanne"),
    "suzy": ("susan", "suzanne"),
    "pat": ("patricia", "patrick"),
    "patty": ("patricia",),
    "nate": ("nathan", "nathaniel"),
    "greg": ("gregory",),
    "jeff": ("jeffrey",),
    "ken": ("kenneth",),
    "kenny": ("kenneth",),
    "larry": ("lawrence",),
    "rick": ("richard",),
    "ricky": ("richard",),
    "rich": ("richard",),
    "dick": ("richard",),
    "ted": ("edward", "theodore"),
    "teddy": ("edward", "theodore"),
    "ed": ("edward", "edwin"),
    "eddie": ("edward",),
    "fred": ("frederick",),
    "freddie": ("frederick",),
    "abby": ("abigail",),
    "becky": ("rebecca",),
    "vicky": ("victoria",),
    "tori": ("victoria",),
    "mandy": ("amanda",),
    "nat": ("natalie", "nathan"),
    "val": ("valerie",),
    "debbie": ("deborah",),
    "deb": ("deborah",),
    "gabe": ("gabriel",),
    "gabby": ("gabrielle", "gabriella"),
    "zach": ("zachary",),
    "josh": ("joshua",),
    "jake": ("jacob",),
    "tim": ("timothy",),
    "timmy": ("timothy",),
    "charlie": ("charles", "charlotte"),
    "chuck": ("charles",),
    "hank": ("henry",),
    "harry": ("henry", "harold"),
    "mel": ("melanie", "melissa"),
    "missy": ("melissa",),
    "cal": ("calvin",),
    "manny": ("manuel",),
    "tina": ("christina", "valentina"),
    "lexi": ("alexis", "alexandra"),
    "alexa": ("alexandra",),
    "frank": ("francis", "franklin"),
    "frankie": ("francis", "francesca"),
    "fran": ("frances", "francesca"),
    "gina": ("regina", "georgina"),
    "jo": ("joanna", "josephine", "joanne"),
    "jojo": ("joanna", "josephine"),
    "max": ("maximilian", "maxwell"),
    "leo": ("leonardo", "leonard"),
    "len": ("leonard",),
    "lenny": ("leonard",),
    "ron": ("ronald",),
    "ronnie": ("ronald", "veronica"),
    "don": ("donald",),
    "donnie": ("donald",),
    "ray": ("raymond",),
    "wes": ("wesley",),
    "theo": ("theodore",),
    "trish": ("patricia",),
    "cindy": ("cynthia",),
    "sandy": ("sandra",),
    "steph": ("stephanie",),
    "nicky": ("nicole", "nicholas"),
    "nikki": ("nicole",),
    "sophie": ("sophia",),
    "annie": ("anna", "anne"),
    "ally": ("allison", "alexandra"),
    "ali": ("alison", "alice", "alistair"),
    "evie": ("evelyn",),
    "em": ("emily", "emma"),
    "emmy": ("emily", "emma"),
    "izzy": ("isabel", "isabella", "isabelle"),
    "bella": ("isabella",),
}

# Capitalised words that are not names (sentence openers, days, months, titles).
SENTENCE_ADVERBS = frozenset(
    """finally honestly sadly luckily basically recently currently apparently hopefully seriously really
    obviously unfortunately fortunately literally anyway actually probably definitely clearly surprisingly
    thankfully eventually suddenly originally personally naturally frankly ideally meanwhile otherwise
    still also just maybe only even already lately officially""".split()
)
"""Sentence adverbs are capitalised at a sentence's start, but they are nobody's name ("Finally settled in ...")."""


NOT_NAMES = frozenset(
    """i i'm i've i'd i'll a an the my our your his her their its he she they we you it this that these those
    there here what when where why how who which yes no yeah yep nope ok okay oh ah wow hey hi hello thanks
    thank sure well so and but or if then also just really actually anyway sounds looks seems feels
    maybe perhaps congrats congratulations good great awesome nice cool sorry please let lets let's
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december today yesterday tomorrow tonight last next this
    mr mrs ms dr mom mum dad mother father god lol omg haha everyone someone somebody anyone nobody
    people everybody both all some many most kids children family guys folks honestly totally absolutely
    definitely glad happy love hope wish what's that's it's there's here's how's where's who's
    christmas easter thanksgiving halloween new year internet tv wifi english spanish french
    exactly right true agreed amazing wonderful fantastic cheers bye goodbye see take have had""".split()
)

_TOKEN = re.compile(r"\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\b")
_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z]{3,}(?![\w-])")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n)\s*[\"'(]*$")


def _key(name: str) -> str:
    name = name.strip().strip(".,!?;:\"'()")
    name = re.sub(r"(?:'s|’s|')$", "", name)
    return name.lower()


def mentioned_names(texts: Iterable[str]) -> Counter[str]:
    """Capitalised tokens used mid-sentence (where capitals mark names), with their counts."""
    counts: Counter[str] = Counter()
    for text in texts:
        for m in _TOKEN.finditer(text):
            if _SENTENCE_START.search(text[: m.start()]):
                continue
            if m[0].lower() not in NOT_NAMES:
                counts[m[0]] += 1
    return counts


def _related(short: str, full: str) -> bool:
    """`short` can denote a person called `full` (both lowercase first names)."""
    if short == full:
        return True
    if full in NICKNAMES.get(short, ()):
        return True
    return len(short) >= 3 and len(short) < len(full) and full.startswith(short)


class AliasResolver:
    """Maps the names used in one conversation onto canonical subjects."""

    def __init__(
        self,
        speakers: Iterable[str] = (),
        mentions: Iterable[str] | Counter[str] = (),
        common: Iterable[str] = (),
    ) -> None:
        self.speakers: list[str] = []
        for s in speakers:
            if s.strip() and s.strip() not in self.speakers:
                self.speakers.append(s.strip())
        self._speaker_keys = {_key(s): s for s in self.speakers}
        self._mentions: Counter[str] = Counter()
        if isinstance(mentions, Counter):
            self._mentions.update(mentions)
        else:
            self._mentions.update(m for m in mentions if m)
        self._cache: dict[str, str] = {}
        self._common = frozenset(common)

    @classmethod
    def from_turns(cls, turns: Sequence[Turn], extra_speakers: Iterable[str] = ()) -> AliasResolver:
        """Speakers are the turns' speakers; mentions are names used mid-sentence in the turns."""
        speakers = [*(t.speaker for t in turns), *extra_speakers]
        common = {w for t in turns for w in _LOWER_WORD.findall(t.text)}
        return cls(speakers, mentioned_names(t.text for t in turns), common)

    def add_mention(self, name: str, count: int = 1) -> None:
        self._mentions[name] += count
        self._cache.clear()

    def is_speaker(self, name: str) -> bool:
        return self.canonical(name) in self.speakers

    def is_known(self, name: str) -> bool:
        """A speaker (or alias of one) or a name the conversation uses mid-sentence."""
        return self.is_speaker(name) or any(_key(m) == _key(name) for m in self._mentions)

    def is_common_word(self, name: str) -> bool:
        """A capitalised word the conversation also uses in lower case and never as a name
        ("Rate's going up" where "my rate" is said too): a sentence's first word, not a person."""
        return not self.is_known(name) and _key(name) in self._common

    def canonical(self, name: str) -> str:
        """The canonical form of `name`; unchanged when the evidence does not support a merge."""
        key = _key(name)
        if not key:
            return name.strip()
        if key not in self._cache:
            self._cache[key] = self._resolve(name, key)
        return self._cache[key]

    def _resolve(self, name: str, key: str) -> str:
        if key in self._speaker_keys:
            return self._speaker_keys[key]
        first = key.split()[0]
        fits = [s for s in self.speakers if self._fits(key, first, _key(s))]
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1:
            return self._display(name)
        # Not a speaker: merge into a fuller mentioned name, if exactly one is mentioned.
        fuller = {
            m
            for m in self._mentions
            if _key(m) != key and " " not in _key(m) and len(_key(m)) > len(key) and _related(key, _key(m))
        }
        if len(fuller) == 1:
            return fuller.pop()
        return self._display(name)

    @staticmethod
    def _fits(key: str, first: str, speaker: str) -> bool:
        s_first = speaker.split()[0]
        if " " in key:  # a full name fits only a speaker with the same first name and no other surname
            return speaker == key or (" " not in speaker and s_first == first)
        return _related(key, s_first) or _related(s_first, key)

    @staticmethod
    def _display(name: str) -> str:
        name = re.sub(r"(?:'s|’s)$", "", name.strip().strip('.,!?;:"()'))
        return name[:1].upper() + name[1:] if name.islower() else name
