"""The search that forgives (tournament.namesearch): 30 ways people mistype registry names.

Each row is a query as a player or director types it and the registry name meant: accents left
off or added, words swapped, a letter off, doubled or transposed, a nickname for the given name.
The registry also holds the names most easily confused with each (a "Smith, Jane" beside
"Smith, Joan"), so "first" means something. The module runs on SQLite, and on PostgreSQL when
DATABASE_URL is set (the CI's second pass), where the candidates come from pg_trgm: the same
table must give the same first player on both.
"""

from __future__ import annotations

import datetime

import pytest

from ratings.models import PlayerRating, RatingList
from tournament.models import Division, Entry, Player, Tournament
from tournament.namesearch import Query, search_key, similarity, trigrams
from tournament.selectors import find_player_ids, search_players
from tournament.selectors.registry import _candidates

REGISTRY = [
    "Smith, Robert",
    "Smith, Roberta",
    "Smyth, Rupert",
    "Smith, Jane",
    "Smith, Joan",
    "Nigel Richards",
    "Richards, Nicole",
    "Bégin, Jacques",
    "Begum, Jasmine",
    "Cappelletto, Brett",
    "Capello, Bret",
    "Fisher, Joel Sherman",
    "Sherman, Joel",
    "Pakorn Nemitrmansuk",
    "Panupol Sujjayakorn",
    "O'Laughlin, Kenji",
    "Laughlin, Ken",
    "Müller, Jürgen",
    "Miller, Jurgen",
    "Øvergaard, Søren",
    "Gruzd, Mark",
    "Grund, Marc",
    "Esposito, Emil",
    "Esposito, Emily",
    "Kowalczyk, Małgorzata",
    "Nyman, Mark",
    "Newman, Mark",
    "Lipe, Adam",
    "Logan, Adam",
    "Tan, Elizabeth",
    "Tan, Eliza Mae",
    "Williamson, Daniel",
    "Williams, Daniel",
    "Wiliamson, Dana",
    "García Márquez, José",
    "Garcia, Jose",
    "Katz-Brown, Jesse",
    "Brown, Jessica",
    "Hoang, Nguyen Thi",
    "Ng, Thi",
    "Mohammed, Ali",
    "Ali, Mahmoud",
    "D'Arcy, Patrick",
    "Darcy, Patricia",
    "Crum, Christopher",
    "Krum, Christine",
    "Van der Berg, Willem",
    "Berg, William",
    "Thébault, Amélie",
    "Thibault, Amelia",
]

# (what was typed, the registry name meant)
TABLE = [
    ("Bob Smith", "Smith, Robert"),  # nickname, given name first
    ("smtih robert", "Smith, Robert"),  # transposed letters
    ("Robbie Smith", "Smith, Robert"),
    ("Smith Joan", "Smith, Joan"),  # one letter from Jane
    ("Jane Smyth", "Smith, Jane"),  # y for i, swapped words
    ("nigel richard", "Nigel Richards"),  # a letter short
    ("Richards Nigel", "Nigel Richards"),  # family name first
    ("Jacques Begin", "Bégin, Jacques"),  # accent left off
    ("Jaques Bégin", "Bégin, Jacques"),  # a letter short, accent typed
    ("Brett Capelletto", "Cappelletto, Brett"),  # one p short
    ("Cappeletto", "Cappelletto, Brett"),  # one l short, family name alone
    ("Joel Sherman Fisher", "Fisher, Joel Sherman"),
    ("Pakorn Nemitmansuk", "Pakorn Nemitrmansuk"),  # Thai name, a letter short
    ("nemitrmansuk", "Pakorn Nemitrmansuk"),
    ("Kenji OLaughlin", "O'Laughlin, Kenji"),  # apostrophe left off
    ("Jurgen Muller", "Müller, Jürgen"),  # umlauts left off
    ("Soren Overgaard", "Øvergaard, Søren"),  # ø typed as o
    ("Mark Gruzd", "Gruzd, Mark"),
    ("Gruzd Marc", "Gruzd, Mark"),  # spelling of the given name
    ("emil esposto", "Esposito, Emil"),  # a letter short
    ("Malgorzata Kowalczyk", "Kowalczyk, Małgorzata"),  # ł typed as l
    ("Kowalcyzk", "Kowalczyk, Małgorzata"),  # transposed
    ("Liz Tan", "Tan, Elizabeth"),  # nickname
    ("Dan Williams", "Williams, Daniel"),  # nickname, given name first
    ("Jose Garcia Marquez", "García Márquez, José"),
    ("Jesse Katz Brown", "Katz-Brown, Jesse"),  # hyphen as space
    ("Muhammad Ali", "Mohammed, Ali"),  # a spelling of Mohammed
    ("Pat DArcy", "D'Arcy, Patrick"),  # nickname, apostrophe left off
    ("Chris Crumm", "Crum, Christopher"),  # nickname, a letter doubled
    ("Willem van den Berg", "Van der Berg, Willem"),  # a particle misspelt
    ("Amelie Thebault", "Thébault, Amélie"),
]


@pytest.fixture
def registry(db) -> dict[str, Player]:
    return {name: Player.objects.create(name=name) for name in REGISTRY}


@pytest.mark.parametrize("typed,meant", TABLE, ids=[t for t, _ in TABLE])
def test_the_intended_player_comes_first(registry, typed, meant):
    found = find_player_ids(typed)
    assert found, f"{typed!r} found nobody"
    assert found[0] == registry[meant].pk, (
        f"{typed!r}: first was {Player.objects.get(pk=found[0]).name!r}, not {meant!r}"
    )


def test_the_table_is_thirty_real_mistakes():
    assert len(TABLE) >= 30
    assert all(meant in REGISTRY for _, meant in TABLE)
    # none is typed exactly as registered: each is a mistake or another order
    assert all(typed != meant for typed, meant in TABLE)


def test_the_database_finds_every_player_the_scoring_keeps(registry):
    """The candidates (pg_trgm's ``%`` on PostgreSQL, the counted LIKEs elsewhere) miss no
    player that scores: what the database prefilters is exactly what a full scan would keep."""
    everyone = [(p.pk, p.search_key) for p in registry.values()]
    for typed, _ in TABLE + [("s", ""), ("jo", ""), ("Ng", ""), ("mark", "")]:
        query = Query(typed)
        kept = {pk for pk, key in everyone if query.score(key) > 0}
        assert kept <= {pk for pk, _ in _candidates(query)}, typed


def test_ties_go_to_the_player_who_played_last(db):
    old = Player.objects.create(name="Lee, Sam")
    recent = Player.objects.create(name="Lee, Sam")
    never = Player.objects.create(name="Lee, Sam")
    for player, when in ((old, datetime.date(2019, 5, 1)), (recent, datetime.date(2026, 3, 1))):
        t = Tournament.objects.create(name=f"Open {when.year}", slug=f"open-{when.year}")
        t.start_date = when
        t.save()
        division = Division.objects.create(tournament=t, name="A", slug="a")
        Entry.objects.create(division=division, player=player, number=1)
    assert find_player_ids("Samuel Lee") == [recent.pk, old.pk, never.pk]


def test_a_word_started_ranks_above_a_near_miss(db):
    smith = Player.objects.create(name="Smithers, Waylon")
    near = Player.objects.create(name="Smit, Wayne")
    assert find_player_ids("smither")[:2] == [smith.pk, near.pk]


def test_the_key_follows_a_rename(db):
    player = Player.objects.create(name="Bob Jones")
    assert player.search_key == " robert jones "
    player.name = "Ángel Ruiz"
    player.save(update_fields=["name"])
    player.refresh_from_db()
    assert player.search_key == " angel ruiz "
    assert find_player_ids("angel ruiz") == [player.pk]


@pytest.mark.parametrize("typed", ["", " ", "\x00", ",,,", "-", "'"])
def test_nothing_typed_finds_nobody(registry, typed):
    assert find_player_ids(typed) == []


def test_an_overlong_query_is_cut_not_refused(registry):
    assert find_player_ids("Smith Robert " * 50)[0] == registry["Smith, Robert"].pk


def test_the_console_search_ranks_by_the_same_score(registry):
    """The console's registration search (and the players' online entry, a club's member
    search) list the forgiving search's order, a federation id first."""
    t = Tournament.objects.create(name="Spring", slug="spring")
    division = Division.objects.create(tournament=t, name="A", slug="a")
    registry["Smith, Joan"].naspa_id = "BOBSMITH"
    registry["Smith, Joan"].save()
    rows = search_players(division, "Bob Smith")
    assert rows[0]["name"] == "Smith, Robert"
    rows = search_players(division, "bobsmith")
    assert rows[0]["name"] == "Smith, Joan"


def test_the_public_search_page_forgives_and_shows_only_public_players(client, registry):
    listed = RatingList.objects.create(name="NASPA", slug="naspa")
    PlayerRating.objects.create(player=registry["Smith, Robert"], rating_list=listed, rating=1500)
    page = client.get("/players/", {"q": "Bob Smtih"}).content.decode()
    assert "Smith, Robert" in page
    # on no list and in no published event: the public does not see them
    assert "Smith, Roberta" not in page


def test_trigrams_are_pg_trgms():
    """The scoring is pg_trgm's: "word" padded with two spaces before and one after."""
    assert trigrams("cat") == {"  c", " ca", "cat", "at "}
    assert similarity(trigrams("john"), trigrams("jon")) == pytest.approx(2 / 7)
    assert search_key("Bégin, J.-P. O'Neil") == "begin j p o neil"
