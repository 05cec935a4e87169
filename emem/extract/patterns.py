"""A small pattern language for extraction rules, so a rule reads like the sentences it covers.

A template is a regular expression with `{...}` macros:

* `{I}` a first-person subject (I, we, "my wife and I"), captured as `fp`;
  `{S}` that or a named person ("Melanie", "my sister Anna"), captured as `fp` or `name`.
* `{vg:move,relocate:past}` a verb group: any of the lemmas, inflected for the tenses named
  (`now`, `past`, `prog`, `any`), with auxiliaries ("'ve", "am", "have been") and adverbs
  ("just", "finally") allowed in between. Simple-present base forms are captured as `vbase`
  so a rule can check agreement with a named subject.
* `{v:move,relocate}` any single inflected form of the lemmas, nothing else.
* `{ADV}` optional adverbs, `{BE}` a form of "to be" (contracted or not; `{BEN}` present only),
  `{HAVE}` present "have", `{NEG}` a negated auxiliary ("don't", "'m not", "no longer", "never"),
  `{DET}` a determiner.
* `{obj:KIND}` the captured object, where KIND is `place`, `org`, `np`, `job`, `pet`, `name`,
  `num`; a second capture of another name is written `{job:job}` / `{org:org}` (group:kind).

Literal words in templates are lowercase; macros deal with sentence-initial capitals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

ADVERBS = (
    "really",
    "just",
    "finally",
    "recently",
    "actually",
    "also",
    "now",
    "even",
    "totally",
    "absolutely",
    "still",
    "already",
    "officially",
    "so",
    "truly",
    "definitely",
    "currently",
    "eventually",
    "honestly",
    "literally",
    "kinda",
    "kind of",
    "sort of",
    "pretty",
    "seriously",
    "genuinely",
    "both",
    "all",
    "personally",
    "newly",
    "happily",
    "proudly",
    "first",
    "then",
    "ultimately",
    "again",
    "always",
    "absolutely",
    "especially",
    "particularly",
    "sometimes",
    "often",
    "usually",
    "completely",
    "super",
    "quite",
    "certainly",
    "luckily",
    "thankfully",
    "somehow",
    "once",
    "lately",
    "officially",
    "secretly",
    "spontaneously",
    "impulsively",
    "originally",
    "remotely",
)

# lemma -> (3rd singular, past, past participle, gerund); regular verbs are derived by rule.
IRREGULAR: dict[str, tuple[str, str, str, str]] = {
    "be": ("is", "was", "been", "being"),
    "have": ("has", "had", "had", "having"),
    "do": ("does", "did", "done", "doing"),
    "go": ("goes", "went", "gone", "going"),
    "get": ("gets", "got", "gotten|got", "getting"),
    "buy": ("buys", "bought", "bought", "buying"),
    "take": ("takes", "took", "taken", "taking"),
    "make": ("makes", "made", "made", "making"),
    "run": ("runs", "ran", "run", "running"),
    "begin": ("begins", "began", "begun", "beginning"),
    "find": ("finds", "found", "found", "finding"),
    "leave": ("leaves", "left", "left", "leaving"),
    "quit": ("quits", "quit|quitted", "quit", "quitting"),
    "see": ("sees", "saw", "seen", "seeing"),
    "become": ("becomes", "became", "become", "becoming"),
    "fly": ("flies", "flew", "flown", "flying"),
    "come": ("comes", "came", "come", "coming"),
    "pick": ("picks", "picked", "picked", "picking"),
    "hold": ("holds", "held", "held", "holding"),
    "win": ("wins", "won", "won", "winning"),
    "swim": ("swims", "swam", "swum", "swimming"),
    "ride": ("rides", "rode", "ridden", "riding"),
    "write": ("writes", "wrote", "written", "writing"),
    "give": ("gives", "gave", "given", "giving"),
    "teach": ("teaches", "taught", "taught", "teaching"),
    "learn": ("learns", "learned|learnt", "learned|learnt", "learning"),
    "spend": ("spends", "spent", "spent", "spending"),
    "meet": ("meets", "met", "met", "meeting"),
    "build": ("builds", "built", "built", "building"),
    "sell": ("sells", "sold", "sold", "selling"),
    "break": ("breaks", "broke", "broken", "breaking"),
    "split": ("splits", "split", "split", "splitting"),
    "lose": ("loses", "lost", "lost", "losing"),
    "sign": ("signs", "signed", "signed", "signing"),
    "travel": ("travels", "traveled|travelled", "traveled|travelled", "traveling|travelling"),
    "enroll": ("enrolls|enrols", "enrolled", "enrolled", "enrolling"),
    "adopt": ("adopts", "adopted", "adopted", "adopting"),
    "visit": ("visits", "visited", "visited", "visiting"),
    "open": ("opens", "opened", "opened", "opening"),
    "tie": ("ties", "tied", "tied", "tying"),
    "lay": ("lays", "laid", "laid", "laying"),
    "fire": ("fires", "fired", "fired", "firing"),
    "stand": ("stands", "stood", "stood", "standing"),
    "grow": ("grows", "grew", "grown", "growing"),
    "dig": ("digs", "dug", "dug", "digging"),
    "feel": ("feels", "felt", "felt", "feeling"),
    "keep": ("keeps", "kept", "kept", "keeping"),
    "put": ("puts", "put", "put", "putting"),
    "cut": ("cuts", "cut", "cut", "cutting"),
    "fall": ("falls", "fell", "fallen", "falling"),
    "set": ("sets", "set", "set", "setting"),
    "say": ("says", "said", "said", "saying"),
    "think": ("thinks", "thought", "thought", "thinking"),
    "bring": ("brings", "brought", "brought", "bringing"),
    "catch": ("catches", "caught", "caught", "catching"),
    "read": ("reads", "read", "read", "reading"),
    "sing": ("sings", "sang", "sung", "singing"),
    "draw": ("draws", "drew", "drawn", "drawing"),
    "throw": ("throws", "threw", "thrown", "throwing"),
    "hit": ("hits", "hit", "hit", "hitting"),
    "shop": ("shops", "shopped", "shopped", "shopping"),
    "prefer": ("prefers", "preferred", "preferred", "preferring"),
    "cancel": ("cancels", "canceled|cancelled", "canceled|cancelled", "canceling|cancelling"),
    "drive": ("drives", "drove", "driven", "driving"),
    "eat": ("eats", "ate", "eaten", "eating"),
    "speak": ("speaks", "spoke", "spoken", "speaking"),
    "choose": ("chooses", "chose", "chosen", "choosing"),
}
"""The one table of irregular verbs: the extractor inflects with it (`inflect`) and the reader's
question frames lemmatise with it (`verb_lemma`)."""

_VOWELS = set("aeiou")


class VerbForms(NamedTuple):
    base: str
    s: str
    past: str
    pp: str
    ing: str


def _doubles(word: str) -> bool:
    """Short consonant-vowel-consonant verbs double their last letter (plan -> planned)."""
    return (
        len(word) <= 4
        and len(word) >= 3
        and word[-1] not in _VOWELS | set("wxy")
        and word[-2] in _VOWELS
        and word[-3] not in _VOWELS
    )


def inflect(lemma: str) -> VerbForms:
    """Forms of a verb (a phrasal verb inflects its first word: "take up" -> "took up")."""
    head, _, rest = lemma.partition(" ")
    tail = f" {rest}" if rest else ""
    if head in IRREGULAR:
        s, past, pp, ing = IRREGULAR[head]
    else:
        if head.endswith(("s", "sh", "ch", "x", "z", "o")):
            s = head + "es"
        elif head.endswith("y") and head[-2] not in _VOWELS:
            s = head[:-1] + "ies"
        else:
            s = head + "s"
        if head.endswith("e"):
            past, ing = head + "d", (head + "ing" if head.endswith(("ee", "ye", "oe")) else head[:-1] + "ing")
        elif head.endswith("y") and head[-2] not in _VOWELS:
            past, ing = head[:-1] + "ied", head + "ing"
        elif _doubles(head):
            past, ing = head + head[-1] + "ed", head + head[-1] + "ing"
        else:
            past, ing = head + "ed", head + "ing"
        pp = past

    def add(forms: str) -> str:
        return "|".join(f + tail for f in forms.split("|"))

    return VerbForms(lemma, add(s), add(past), add(pp), add(ing))


def irregular_forms(lemma: str) -> frozenset[str] | None:
    """Every form of an irregular verb, the lemma included ("drive" -> drive, drives, drove, driven,
    driving); None for a regular verb."""
    if lemma not in IRREGULAR:
        return None
    return frozenset({lemma, *(f for forms in IRREGULAR[lemma] for f in forms.split("|"))})


@lru_cache(maxsize=4096)
def verb_lemma(form: str) -> str:
    """The lemma of a verb form: exact for the irregular verbs ("drove" -> "drive"), by rule
    otherwise ("studies" -> "study", "plays" -> "play"), and crude for the rest ("moving" ->
    "mov"): compare only lemmas made by this function with each other."""
    low = form.lower()
    if low in _IRREGULAR_LEMMA:
        return _IRREGULAR_LEMMA[low]
    if low.endswith(("ies", "ied")) and len(low) > 4:
        return low[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if low.endswith(suffix) and len(low) - len(suffix) >= 3:
            low = low[: -len(suffix)]
            break
    return low[:-1] if low.endswith("e") and len(low) > 3 else low


_IRREGULAR_LEMMA: dict[str, str] = {
    form: lemma for lemma in reversed(list(IRREGULAR)) for form in irregular_forms(lemma) or ()
}
"""Form -> lemma over the irregular table ("left" -> "leave"; the first verb listed wins a shared form)."""


def gerund(verb: str) -> str:
    """ "paint" -> "painting", "take up" -> "taking up"."""
    return inflect(verb).ing.split("|")[0]


def _alt(words: Iterable[str]) -> str:
    parts = sorted({w for word in words for w in word.split("|")}, key=len, reverse=True)
    return "(?:" + "|".join(p.replace(" ", r"\s+") for p in parts) + ")"


_LY_ADVERB = (
    r"(?!(?:family|supply|belly|jelly|rally|bully|holly|early|daily|lovely|lonely|silly|friendly|elderly|ugly|"
    r"assembly|butterfly|reply|apply|comply|imply|rely|multiply|anomaly)\b)[a-z]{3,}ly\b"
)
"""Any other -ly adverb in the same place ("I've been fully vegan", "we mostly eat fish")."""
ADV = r"(?:\s+(?:" + _alt(ADVERBS) + "|" + _LY_ADVERB + r"))*"
_BE_NOW = r"(?:'m|'re|'s|\s+am|\s+are|\s+is)"
_HAVE_NOW = r"(?:'ve|'s|\s+have|\s+has)"
_HAVE_PAST = r"(?:\s+had)"
_WAS = r"(?:\s+was|\s+were)"


@lru_cache(maxsize=512)
def verb_group(lemmas: tuple[str, ...], tenses: str, capture: bool = True) -> str:
    """Regex for a finite verb group of `lemmas` in the named tenses (see module docstring).

    With `capture`, a simple-present base form is captured as `vbase` (one per template)."""
    forms = [inflect(lemma) for lemma in lemmas]
    base, s = _alt(f.base for f in forms), _alt(f.s for f in forms)
    past, pp, ing = _alt(f.past for f in forms), _alt(f.pp for f in forms), _alt(f.ing for f in forms)
    wanted = {"now", "past", "prog"} if tenses == "any" else set(tenses.split("+"))
    alts: list[str] = []
    if "now" in wanted:
        alts += [
            rf"{ADV}\s+(?:(?P<vbase>{base})|{s})" if capture else rf"{ADV}\s+(?:{base}|{s})",
            rf"{ADV}{_BE_NOW}{ADV}\s+{ing}",
            rf"{ADV}{_HAVE_NOW}{ADV}\s+been{ADV}\s+{ing}",
            rf"{ADV}{_HAVE_NOW}{ADV}\s+{pp}",
        ]
    if "past" in wanted:
        alts += [rf"{ADV}\s+{past}", rf"{ADV}{_HAVE_PAST}{ADV}\s+{pp}"]
        if "now" not in wanted:
            alts.append(rf"{ADV}{_HAVE_NOW}{ADV}\s+{pp}")
    if "prog" in wanted:
        alts.append(rf"{ADV}{_WAS}{ADV}\s+{ing}")
    if "ing" in wanted:
        alts.append(rf"{ADV}{_BE_NOW}{ADV}\s+{ing}")
    if "future" in wanted:
        alts += [
            rf"{ADV}(?:'ll|\s+will|{_BE_NOW}\s+(?:going\s+to|gonna)){ADV}\s+{base}",
            rf"{ADV}{_BE_NOW}{ADV}\s+{ing}",
        ]
    return r"(?:" + "|".join(alts) + r")\b"


def any_form(lemmas: tuple[str, ...]) -> str:
    forms = [inflect(lemma) for lemma in lemmas]
    return _alt(x for f in forms for x in f) + r"\b"


RELATIONS = (
    "sister",
    "brother",
    "friend",
    "mom",
    "mum",
    "mother",
    "dad",
    "father",
    "son",
    "daughter",
    "cousin",
    "aunt",
    "uncle",
    "wife",
    "husband",
    "partner",
    "boyfriend",
    "girlfriend",
    "roommate",
    "neighbor",
    "neighbour",
    "colleague",
    "coworker",
    "co-worker",
    "boss",
    "niece",
    "nephew",
    "grandma",
    "grandmother",
    "grandpa",
    "grandfather",
    "fiancé",
    "fiancée",
    "fiance",
    "fiancee",
    "buddy",
    "classmate",
    "teammate",
    "mentor",
    "sibling",
    "kid",
    "child",
    "stepson",
    "stepdaughter",
    "ex",
    "ex-husband",
    "ex-wife",
    "ex-boyfriend",
    "ex-girlfriend",
    "ex-partner",
)
RELATION_WORDS = "|".join(sorted(RELATIONS, key=len, reverse=True))
"""The relations as one alternation, longest first ("co-worker" before "worker")."""
KIN_BEFORE_NAME = rf"\b(?i:my|our|his|her|their)\s+(?:[a-z]+\s+)?(?:{RELATION_WORDS})\s+"
"""What introduces someone by their relation to the speaker ("my sister ", "my older brother ")."""
KIN_NAMED = rf"{KIN_BEFORE_NAME}(?P<kin_name>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b"
"""Someone named by their relation to the speaker ("my sister Gesine", "my older brother Nikhil")."""
REL_MODIFIERS = (
    "best",
    "close",
    "old",
    "little",
    "big",
    "older",
    "younger",
    "twin",
    "good",
    "oldest",
    "youngest",
    "eldest",
    "baby",
    "dear",
    "childhood",
)

FIRST_PERSON = (
    r"(?P<fp>(?:(?:[Mm]y|[Oo]ur)\s+[a-z]+\s+and\s+)?\b(?:I|i|[Ww]e)\b"
    r"|\b[Mm]e\s+and\s+(?:my|our)\s+[a-z]+\b)"
)
NAME = r"(?P<name>\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:-[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)?)(?!\w)"
NAMED_PERSON = (
    rf"(?:\b(?:[Mm]y|[Oo]ur)\s+(?:{_alt(REL_MODIFIERS)}\s+)?(?P<rel>{_alt(RELATIONS)}),?\s+)?{NAME}"
)
SUBJECT = rf"(?:{FIRST_PERSON}|{NAMED_PERSON})"

# Occupations: the head noun of a job title. Ambiguous heads ("cook", "runner", "fan") are left out.
HOME_NOUN = (
    r"(?:house|home|flat|apartment|semi|terrace|cottage|bungalow|place|maisonette|farmhouse|townhouse|"
    r"new-build|barn\s+conversion|houseboat|caravan|trailer|condo|duplex|bedsit|cabin|room|loft|villa|chalet|"
    r"casita|annexe)"
)
"""Kinds of home a person lives in, as said of where they live ("a two-bed terrace in Horbury",
"a trailer out at Bells Flats")."""
VEHICLE_NOUN = r"(?:car|van|truck|pickup|ute|vehicle)s?"
"""Words that name a vehicle outright, singular or plural: what a turn or a question about one says."""

JOBS = (
    "nurse",
    "teacher",
    "engineer",
    "developer",
    "programmer",
    "doctor",
    "physician",
    "surgeon",
    "dentist",
    "lawyer",
    "attorney",
    "accountant",
    "architect",
    "designer",
    "artist",
    "painter",
    "musician",
    "writer",
    "author",
    "journalist",
    "editor",
    "photographer",
    "chef",
    "baker",
    "barista",
    "bartender",
    "waiter",
    "waitress",
    "cashier",
    "pharmacist",
    "therapist",
    "counselor",
    "counsellor",
    "psychologist",
    "psychiatrist",
    "worker",
    "electrician",
    "plumber",
    "carpenter",
    "mechanic",
    "technician",
    "pilot",
    "firefighter",
    "officer",
    "detective",
    "soldier",
    "scientist",
    "researcher",
    "professor",
    "lecturer",
    "librarian",
    "manager",
    "director",
    "consultant",
    "analyst",
    "salesman",
    "saleswoman",
    "realtor",
    "agent",
    "entrepreneur",
    "founder",
    "intern",
    "assistant",
    "receptionist",
    "secretary",
    "paramedic",
    "vet",
    "veterinarian",
    "pediatrician",
    "midwife",
    "caregiver",
    "nanny",
    "tutor",
    "coach",
    "trainer",
    "instructor",
    "student",
    "farmer",
    "driver",
    "stylist",
    "hairdresser",
    "barber",
    "dancer",
    "singer",
    "actor",
    "actress",
    "comedian",
    "producer",
    "animator",
    "illustrator",
    "translator",
    "interpreter",
    "clerk",
    "banker",
    "broker",
    "economist",
    "statistician",
    "mathematician",
    "physicist",
    "chemist",
    "biologist",
    "administrator",
    "coordinator",
    "specialist",
    "supervisor",
    "ceo",
    "cto",
    "cfo",
    "professional",
    "executive",
    "recruiter",
    "paralegal",
    "optometrist",
    "sculptor",
    "potter",
    "filmmaker",
    "director",
    "blogger",
    "youtuber",
    "streamer",
    "influencer",
    "podcaster",
    "composer",
    "guitarist",
    "pianist",
    "drummer",
    "violinist",
    "dj",
    "principal",
    "counsellor",
    "activist",
    "advocate",
    "organizer",
    "organiser",
    "volunteer",
    "firefighter",
    "cop",
    "surgeon",
    "therapist",
    "dietitian",
    "nutritionist",
    "chiropractor",
    "physiotherapist",
    "carer",
    "housekeeper",
    "janitor",
    "guard",
    "lifeguard",
    "landscaper",
    "gardener",
    "florist",
    "tailor",
    "jeweler",
    "butcher",
    "fisherman",
    "miner",
    "welder",
    "hygienist",
    "sonographer",
    "radiographer",
    "radiologist",
    "phlebotomist",
    "anaesthetist",
    "anesthetist",
    "paediatrician",
    "orthodontist",
    "podiatrist",
    "osteopath",
    "optician",
    "physio",
    "postman",
    "postwoman",
    "postie",
    "courier",
    "freelancer",
    "cleaner",
    "porter",
    "solicitor",
    "barrister",
    "judge",
    "magistrate",
    # orchestral players, crafts, trades and clinics (session 17)
    "cellist",
    "violist",
    "harpist",
    "oboist",
    "flautist",
    "flutist",
    "bassist",
    "organist",
    "percussionist",
    "saxophonist",
    "trumpeter",
    "trombonist",
    "clarinettist",
    "clarinetist",
    "bassoonist",
    "bookbinder",
    "bookkeeper",
    "auctioneer",
    "audiologist",
    "cardiologist",
    "cartographer",
    "chauffeur",
    "childminder",
    "conservator",
    "deckhand",
    "dermatologist",
    "doula",
    "embalmer",
    "epidemiologist",
    "farrier",
    "fishmonger",
    "glassblower",
    "glazier",
    "greengrocer",
    "haulier",
    "headteacher",
    "headmaster",
    "headmistress",
    "herdsman",
    "innkeeper",
    "magician",
    "mariner",
    "neurologist",
    "oncologist",
    "pathologist",
    "publican",
    "shopkeeper",
    "trucker",
    "typesetter",
    "undertaker",
    "valuer",
    "projectionist",
    "stagehand",
    "builder",
    "roofer",
    "plasterer",
    "decorator",
    "bricklayer",
    "joiner",
    "locksmith",
    "surveyor",
    "curator",
    "archivist",
    "archaeologist",
    "historian",
    "geologist",
    "ecologist",
    "botanist",
    "zoologist",
    "astronomer",
    "meteorologist",
    "psychotherapist",
    "reporter",
    "presenter",
    "broadcaster",
    "columnist",
    "publisher",
    "proofreader",
    "copywriter",
    "machinist",
    "fitter",
    "labourer",
    "laborer",
    "foreman",
    "contractor",
    "handyman",
    "caretaker",
    "concierge",
    "sailor",
    "priest",
    "vicar",
    "rabbi",
    "imam",
    "pastor",
    "chaplain",
    "politician",
    "councillor",
    "councilor",
    "diplomat",
    "auditor",
    "actuary",
    "underwriter",
    "teller",
    "trader",
    "beautician",
    "tattooist",
    "videographer",
    "cameraman",
    "sommelier",
    "brewer",
    "winemaker",
    "beekeeper",
    "shepherd",
    "ranger",
    "forester",
    "zookeeper",
    "groomer",
    "upholsterer",
    "stonemason",
    "blacksmith",
    "seamstress",
    "dressmaker",
    "dispatcher",
    "conductor",
    "steward",
    "stewardess",
    "attendant",
    "controller",
    "inspector",
    "footballer",
    "jockey",
    "referee",
    "umpire",
    "tuner",
    "luthier",
)
EVALUATIVE = (
    "big",
    "huge",
    "terrible",
    "good",
    "great",
    "bad",
    "proud",
    "total",
    "hard",
    "real",
    "little",
    "lucky",
    "happy",
    "busy",
    "tired",
    "fan",
    "better",
    "worse",
    "best",
    "worst",
    "horrible",
    "awful",
    "amazing",
    "decent",
    "lousy",
    "natural",
    "born",
    "wannabe",
    "aspiring",
    "former",
    "retired",
    "ex",
    "future",
)
JOB = (
    rf"(?:(?!(?:{'|'.join(EVALUATIVE)})\b)(?:[a-z][\w-]*|[A-Z]{{2,4}}(?![a-z]))\s+){{0,3}}?{_alt(JOBS)}"
    r"(?:\s+(?:assistant|manager|technician|practitioner))?\b"
)
DOG_WORDS = (
    "puppy",
    "pup",
    # breeds people name their pets by ("our golden retriever Bruno")
    "golden retriever",
    "retriever",
    "labrador",
    "poodle",
    "terrier",
    "beagle",
    "husky",
    "corgi",
    "dachshund",
    "bulldog",
    "german shepherd",
    "spaniel",
    "pug",
    "chihuahua",
    "border collie",
    "collie",
    "greyhound",
    "schnauzer",
    "dalmatian",
    "lurcher",
    "whippet",
    "labradoodle",
    "cockapoo",
    "sheepdog",
    "hound",
    "rottweiler",
    "doberman",
    "ridgeback",
    "jack russell",
    "shih tzu",
    "westie",
    "yorkie",
    "samoyed",
    "malamute",
    "akita",
    "vizsla",
    "mastiff",
    "great dane",
    "staffie",
    "mutt",
)
"""Words for a dog by its age or breed: each is a pet word, and names a dog."""
CAT_WORDS = (
    "kitten",
    "kitty",
    "tabby",
    "maine coon",
    "siamese",
    "ragdoll",
    "sphynx",
    "tortoiseshell",
    "tortie",
)
"""Words for a cat by its age or breed: each is a pet word, and names a cat."""
INSTRUMENTS = frozenset(
    """guitar piano violin viola cello drum drums ukulele bass flute saxophone sax trumpet trombone
    clarinet oboe bassoon tuba harp keyboard keyboards organ banjo mandolin harmonica accordion
    sitar tabla djembe bagpipes recorder synth synthesizer xylophone marimba""".split()
)
"""Musical instruments, as one word of a value ("the talking drum", "the double bass"): what
answers "What instrument ...?" among a person's pastimes."""
PETS = (
    "dog",
    "cat",
    "hamster",
    "rabbit",
    "bunny",
    "parrot",
    "bird",
    "goldfish",
    "fish",
    "turtle",
    "tortoise",
    "snake",
    "lizard",
    "guinea pig",
    "horse",
    "pony",
    "ferret",
    "gecko",
    "hedgehog",
    "budgie",
    "chinchilla",
    "iguana",
    "rat",
    "mouse",
    "cockatiel",
    "canary",
    "chicken",
    "hen",
    "duck",
    "parakeet",
    "cockatoo",
    *DOG_WORDS,
    *CAT_WORDS,
)
"""Words a pet is called by (every reader of them orders them longest first)."""
PET_FAMILY = {**dict.fromkeys(DOG_WORDS, "dog"), **dict.fromkeys(CAT_WORDS, "cat"), "bunny": "rabbit"}
"""What kind of animal a pet word names ("a border collie" is a dog)."""


def pet_family(species: str) -> str:
    """The kind of animal a species or breed word names ("border collie" -> "dog")."""
    return PET_FAMILY.get(" ".join(species.lower().split()), species.lower())


PET = rf"(?:(?:[a-z]+\s+){{0,2}}?{_alt(PETS)}(?:s|es)?)\b"
PET_FORMS = (
    "(?:"
    + "|".join(
        rf"{re.escape(w[:-1])}(?:y|ies)" if w.endswith("y") else rf"{re.escape(w)}(?:s|es)?"
        for w in sorted(PETS, key=len, reverse=True)
    )
    + ")"
)
"""Any pet word, singular or plural ("guinea pigs", "hens", "puppies")."""

UPPER = "A-Z" + "".join(ch for ch in map(chr, range(0xC0, 0x250)) if ch.isupper())
"""Capital letters of the Latin alphabets for a character class ("Ōhope", "Ærø", "Łódź"): `[A-Z]`
alone misses every place whose name starts with an accented capital."""
_CAP = rf"(?:[{UPPER}][\w'.&-]*)"
_PLACE_JOIN = r"(?:(?:of|de|del|la|le|du|da|on|upon|am|el|los|las|san|saint)\s+)?"
PLACE = rf"(?:the\s+)?{_CAP}(?:\s+(?!I\b){_PLACE_JOIN}{_CAP})*"
_ABBREV_DOT = (
    "(?:"
    + "|".join(
        f"(?<=\\b{a})"
        for a in ("St", "Dr", "Mt", "Mr", "Mrs", "Ms", "Jr", "Sr", "Co", "Inc", "Ltd", "Corp", "Ft")
    )
    + r")\."
)
NP = rf"(?:[^.!?;]|{_ABBREV_DOT})+"
"""A greedy noun-phrase capture to the end of the sentence; post-processors cut it down."""
NUMBER = r"\d{1,3}\b|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-][a-z]+)?\b"

OBJECT_KINDS = {
    "place": PLACE,
    "org": NP,
    "np": NP,
    "job": JOB,
    "pet": PET,
    "name": r"[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\b",
    "num": NUMBER,
}
DET = r"(?:a|an|the|my|our|some|this|that|these|those|his|her|their)"
BE = rf"(?:{_BE_NOW}|{_WAS})"

BE_NOW = _BE_NOW
HAVE_NOW = _HAVE_NOW
NEG = (
    r"(?:\s+(?:don't|do\s+not|doesn't|does\s+not|didn't|did\s+not|never|no\s+longer|haven't|have\s+not"
    r"|hasn't|has\s+not|isn't|is\s+not|aren't|are\s+not|wasn't|was\s+not|weren't|were\s+not|am\s+not"
    r"|ain't|can't|cannot)|'m\s+not|'re\s+not|'s\s+not|'ve\s+never|'d\s+never|(?:'m|'re|'s|\s+am|\s+is|\s+are)"
    r"\s+no\s+longer|(?:'ve|\s+have|'s|\s+has)\s+(?:never|not))"
)
HABIT = r"(?![^.!?]*\b(?:every|each|usually|always|often|sometimes|whenever|normally|typically)\b)"
"""Not a habit: "we move to the coast every summer" is a routine, not a dated schedule."""

MACROS = {
    "I": FIRST_PERSON,
    "S": SUBJECT,
    "ADV": ADV,
    "BE": BE,
    "BEN": BE_NOW,
    "HAVE": HAVE_NOW,
    "DET": DET,
    "NEG": NEG,
    "HABIT": HABIT,
}

_MACRO = re.compile(r"\{([A-Za-z][^{}]*)\}")


def _expand(match: re.Match[str], seen: list[str]) -> str:
    body = match[1]
    if body in MACROS:
        return MACROS[body]
    kind, _, arg = body.partition(":")
    if kind == "vg":
        lemmas, _, tenses = arg.partition(":")
        seen.append(body)
        return verb_group(tuple(lemmas.split(",")), tenses or "any", capture=len(seen) == 1)
    if kind == "v":
        return any_form(tuple(arg.split(",")))
    if arg in OBJECT_KINDS:  # {group:kind}
        return f"(?P<{kind}>{OBJECT_KINDS[arg]})"
    raise ValueError(f"unknown macro {{{body}}}")


def template_keywords(template: str) -> frozenset[str] | None:
    """Words of which at least one must occur for the template to match: the first word of every
    form of every verb in its `{vg:...}` / `{v:...}` macros (None when it has none). A cheap
    pre-filter, so that a sentence is only searched by the rules it could satisfy."""
    words: set[str] = set()
    for body in _MACRO.findall(template):
        kind, _, arg = body.partition(":")
        if kind in ("vg", "v"):
            for lemma in arg.partition(":")[0].split(","):
                words |= {form.split()[0] for forms in inflect(lemma) for form in forms.split("|")}
    return frozenset(words) or None


def compile_template(template: str) -> re.Pattern[str]:
    """Expand the macros of `template` into a compiled regular expression."""
    seen: list[str] = []
    return re.compile(_MACRO.sub(lambda m: _expand(m, seen), template))
