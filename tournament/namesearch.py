"""A name search that forgives: accents, case, word order, a letter or two, and nicknames.

The pure core of every player search (the console's registration, players finding themselves
when they enter online, a club's member search, the public /players/ page): no Django here,
so the scoring is the same whichever database found the candidates.

A name becomes a *search key*: accents off, case folded, punctuation to spaces, and each word
that is a known nickname or spelling replaced by its group's name ("Bob" and "Bobby" become
"robert", "Muhammad" becomes "mohammed"). The key is stored on the player
(``Player.search_key``) so the database can find candidates quickly; the query is keyed the
same way, and two keys are compared by trigram similarity, exactly as PostgreSQL's pg_trgm
does it (each word padded with two spaces in front and one behind; the share of distinct
three-letter pieces the two have in common, ``|A ∩ B| / |A ∪ B|``). A word typed as the start
of a name's word ("Smi" for "Smith") ranks above any near miss.

Both databases find the candidates with the same query (``candidate_lookups``: one LIKE per
piece, a name being a candidate when it has at least ``least_shared`` pieces in common with
the query, which any name that scores must have); on PostgreSQL pg_trgm's trigram index on
the key answers those LIKEs, so a registry of tens of thousands is not read row by row. Both
then score here, so both give the same players in the same order.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Iterable

# pg_trgm's default similarity threshold: the ``%`` operator's cut-off, so the two databases
# agree on which near misses count
THRESHOLD = 0.3
# a query whose every word starts a word of the name ranks above every near miss
PREFIX_FLOOR = 0.5
# a name matched word by word counts for a little less than one matched whole
WORD_WEIGHT = 0.9

# Nicknames and spellings of one given name. Only unambiguous ones: "Al" (Alan, Albert,
# Alfred), "Bert" and "Sandy" would match the wrong people as often as the right ones.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "robert": ("bob", "bobby", "rob", "robbie", "robby", "bobbie"),
    "william": ("bill", "billy", "will", "willy", "willie", "liam"),
    "richard": ("dick", "rick", "ricky", "rich", "richie", "rickie"),
    "james": ("jim", "jimmy", "jamie", "jimmie"),
    "john": ("jon", "johnny", "jack", "jonny", "johnnie"),
    "michael": ("mike", "mikey", "mick", "micky", "mickey", "mikael"),
    "thomas": ("tom", "tommy", "thom"),
    "joseph": ("joe", "joey", "jose"),
    "charles": ("charlie", "chuck", "chas", "charley"),
    "edward": ("ed", "eddie", "ted", "teddy", "ned", "eddy"),
    "elizabeth": ("liz", "beth", "betty", "lizzie", "eliza", "libby", "elisabeth", "betsy"),
    "margaret": ("maggie", "meg", "peggy", "marge", "margie", "greta"),
    "katherine": (
        "kate",
        "katie",
        "kathy",
        "cathy",
        "catherine",
        "kathryn",
        "katharine",
        "kat",
        "kathleen",
    ),
    "daniel": ("dan", "danny"),
    "david": ("dave", "davey", "davy"),
    "anthony": ("tony", "antony"),
    "andrew": ("andy", "drew"),
    "christopher": ("chris", "kit", "topher"),
    "matthew": ("matt", "matty"),
    "nicholas": ("nick", "nicky", "nicolas", "nikolas"),
    "benjamin": ("ben", "benny", "benji"),
    "samuel": ("sam", "sammy"),
    "alexander": ("alex", "alec", "xander", "alexandre", "aleksandr"),
    "steven": ("steve", "stephen", "stevie", "stefan"),
    "timothy": ("tim", "timmy"),
    "peter": ("pete", "pietro", "pierre"),
    "patrick": ("pat", "paddy"),
    "gregory": ("greg",),
    "jeffrey": ("jeff", "geoffrey", "geoff", "jeffery"),
    "kenneth": ("ken", "kenny"),
    "ronald": ("ron", "ronnie"),
    "donald": ("don", "donnie"),
    "lawrence": ("larry", "laurence"),
    "gerald": ("gerry", "jerry"),
    "frederick": ("fred", "freddie", "freddy", "frederic"),
    "henry": ("harry", "hank", "hal"),
    "jennifer": ("jen", "jenny", "jenn"),
    "susan": ("sue", "susie", "suzie"),
    "deborah": ("deb", "debbie", "debra", "debby"),
    "rebecca": ("becky", "becca"),
    "patricia": ("patty", "trish", "tricia", "patti"),
    "victoria": ("vicky", "vicki", "tori"),
    "abigail": ("abby", "abbie"),
    "barbara": ("barb", "babs"),
    "dorothy": ("dot", "dottie", "dolly"),
    "judith": ("judy", "judi"),
    "theodore": ("theo",),
    "zachary": ("zach", "zack", "zak"),
    "joshua": ("josh",),
    "jacob": ("jake",),
    "raymond": ("ray",),
    "leonard": ("len", "lenny", "leo"),
    "philip": ("phil", "phillip", "pip"),
    "douglas": ("doug",),
    "bradley": ("brad",),
    "jessica": ("jess", "jessie"),
    "cynthia": ("cindy",),
    "kimberly": ("kim", "kimberley"),
    "pamela": ("pam",),
    "nathan": ("nate", "nathaniel"),
    "walter": ("walt", "wally"),
    "eugene": ("gene",),
    "vincent": ("vince", "vinny"),
    "francis": ("frank", "frankie", "francesco", "franz"),
    "mohammed": ("muhammad", "mohamed", "mohammad", "muhammed", "mohamad", "mohd"),
}
ALIASES: dict[str, str] = {
    alias: name for name, aliases in NICKNAMES.items() for alias in (name, *aliases)
}


def fold(name: str) -> str:
    """A name for comparing: accents off, case folded, punctuation to spaces ("Bégin, J.").

    Letters with no decomposition are spelled as the registry's ASCII copies spell them
    ("ø" as "o", "ß" as "ss", "æ" as "ae", "ł" as "l").
    """
    text = unicodedata.normalize("NFKD", name.translate(_SPELLED))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


_SPELLED = str.maketrans(
    {"ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L"}
    | {"đ": "d", "Đ": "D", "ð": "d", "þ": "th", "ı": "i"}
)


def search_key(name: str) -> str:
    """The name as searches compare it: folded, each nickname or spelling as its group's name.

    Words keep their order (a key is shown nowhere; similarity ignores order anyway).
    """
    return " ".join(ALIASES.get(w, w) for w in fold(name).split())


def stored_key(name: str) -> str:
    """``search_key`` as a player row keeps it: a space before and after, so that each piece
    of a query is one substring test in SQL (a word's start is " j", its end "hn ")."""
    key = search_key(name)
    return f" {key} " if key else ""


def trigrams(key: str) -> frozenset[str]:
    """The distinct three-letter pieces of a key, as pg_trgm makes them ("  j", " jo", "joh",
    "ohn", "hn " for "john")."""
    words = key.split()
    if len(words) == 1:
        return word_trigrams(words[0])
    return frozenset().union(*(word_trigrams(w) for w in words))


@functools.lru_cache(maxsize=65536)
def word_trigrams(word: str) -> frozenset[str]:
    """One word's pieces; kept, since a registry's names share their words (a search scores
    thousands of names made of a few thousand words)."""
    padded = f"  {word} "
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """pg_trgm's ``similarity``: shared pieces over all pieces of either (0 when both empty)."""
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def _prefixes(query_words: list[str], name_words: list[str]) -> bool:
    """Does every typed word start a different word of the name ("smi jo" in "smith john")?"""
    free = list(name_words)
    for q in sorted(query_words, key=len, reverse=True):
        for i, w in enumerate(free):
            if w.startswith(q):
                del free[i]
                break
        else:
            return False
    return True


class Query:
    """A typed query, keyed once, scored against many names."""

    def __init__(self, text: str) -> None:
        self.key = search_key(text)
        self.words = self.key.split()
        self.pieces = trigrams(self.key)
        self.word_pieces = [word_trigrams(w) for w in self.words]
        self._scores: dict[str, float] = {}  # a registry repeats names: each scored once

    def __bool__(self) -> bool:
        return bool(self.pieces)

    def score(self, key: str) -> float:
        """How well a name's key answers the query, from 0 (not at all) to 1.

        1.0 for the same words in any order; a query whose every word starts a word of the
        name from ``PREFIX_FLOOR`` up; else the better of the trigram similarity of the whole
        names and, at ``WORD_WEIGHT``, the typed words' mean similarity to their nearest word
        of the name (a family name typed alone, misspelt, against "Family, Given Names").
        Below ``THRESHOLD`` is 0.
        """
        known = self._scores.get(key)
        if known is None:
            known = self._scores[key] = self._score(key)
        return known

    def _score(self, key: str) -> float:
        words = key.split()
        if sorted(words) == sorted(self.words):
            return 1.0
        sim = similarity(self.pieces, trigrams(key))
        if _prefixes(self.words, words):
            return PREFIX_FLOOR + (1 - PREFIX_FLOOR) * sim * 0.999
        if words:
            best = [0.0] * len(self.word_pieces)
            for w in words:
                pieces = word_trigrams(w)
                for i, q in enumerate(self.word_pieces):
                    best[i] = max(best[i], similarity(q, pieces))
            sim = max(sim, WORD_WEIGHT * sum(best) / len(best))
        return sim if sim >= THRESHOLD else 0.0

    def least_shared(self) -> int:
        """The fewest pieces a name must share with the query to score at all.

        A whole-name similarity of ``THRESHOLD`` needs ``THRESHOLD * |query|`` shared (the
        union is at least the query); a mean word similarity of ``THRESHOLD / WORD_WEIGHT``
        needs one typed word that similar, so that share of its pieces; and a name the
        query's words start shares all but each word's last piece.
        """
        by_similarity = math.ceil(THRESHOLD * len(self.pieces) - 1e-9)
        smallest_word = min(len(p) for p in self.word_pieces)
        by_word = math.ceil(THRESHOLD / WORD_WEIGHT * smallest_word - 1e-9)
        by_prefix = len(self.pieces) - len(self.words)
        return max(1, min(by_similarity, by_word, by_prefix))

    def candidate_lookups(self) -> list[str]:
        """For each piece of the query, the text a stored key (``stored_key``: its words
        between single spaces, one space before and after) contains when it has that piece:
        "  j" is " j" (a word starting with j), "hn " is "hn " (a word ending in hn), "ohn"
        itself. A database without trigrams counts these with one LIKE each."""
        return sorted(
            " " + piece.strip() if piece.startswith("  ") else piece for piece in self.pieces
        )


def rank(query: Query, names: Iterable[tuple[int, str]]) -> list[tuple[float, int]]:
    """(score, id) of the (id, key) names that answer the query, best first (then by id)."""
    scored = [(s, pk) for pk, key in names if (s := query.score(key)) > 0]
    scored.sort(key=lambda t: (-round(t[0], 6), t[1]))
    return scored


def by_activity(scored: list[tuple[float, int]], activity: dict[int, str]) -> list[int]:
    """The ids of ``rank``'s answer, those of one score the most recently active first
    (``activity``: id to an ISO date of their last event; none last), then by id."""
    ordered = sorted(
        scored, key=lambda t: (-round(t[0], 6), _descending(activity.get(t[1], "")), t[1])
    )
    return [pk for _, pk in ordered]


def _descending(iso_date: str) -> tuple[int, ...]:
    """An ISO date as a key that sorts the latest first (no date last)."""
    if not iso_date:
        return (1,)
    return (0, *(-int(part) for part in iso_date.split("-")))
