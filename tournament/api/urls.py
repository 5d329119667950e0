"""/api/v1/ (resources), /api/schema/ (OpenAPI 3) and /api/docs/ (Swagger UI, served here)."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import calendar, clock, clubs, entries, gcg, venue, views

D = "tournaments/<slug:slug>/divisions/<str:division>/"

v1 = [
    path("events/", calendar.EventList.as_view(), name="events"),
    path("tournaments/", views.TournamentList.as_view(), name="tournaments"),
    path("tournaments/<slug:slug>/", views.TournamentDetail.as_view(), name="tournament"),
    path("tournaments/<slug:slug>/divisions/", views.DivisionList.as_view(), name="divisions"),
    path("tournaments/<slug:slug>/entries/", entries.EntryLists.as_view(), name="entry_lists"),
    path(
        "tournaments/<slug:slug>/online-entries/",
        entries.OnlineEntries.as_view(),
        name="online_entries",
    ),
    path(
        "tournaments/<slug:slug>/online-entries/<int:pk>/",
        entries.OnlineEntryAction.as_view(),
        name="online_entry_action",
    ),
    path(D, views.DivisionDetail.as_view(), name="division"),
    path(D + "entries/", views.EntryList.as_view(), name="entries"),
    path(D + "entries/<int:number>/", views.EntryDetail.as_view(), name="entry"),
    path(D + "entries/<int:number>/withdraw/", views.WithdrawEntry.as_view(), name="withdraw"),
    path(D + "entries/<int:number>/reinstate/", views.ReinstateEntry.as_view(), name="reinstate"),
    path(D + "entries/<int:number>/move/", views.MoveEntry.as_view(), name="move_entry"),
    path(D + "entries/<int:number>/check-in/", entries.CheckIn.as_view(), name="check_in"),
    path(D + "remove-absent/", entries.RemoveAbsent.as_view(), name="remove_absent"),
    path(D + "renumber/", views.Renumber.as_view(), name="renumber"),
    path(D + "rounds/", views.RoundList.as_view(), name="rounds"),
    path(D + "rounds/<int:round>/pair/", views.PairRound.as_view(), name="pair_round"),
    path(D + "rounds/<int:round>/pairings/", views.RoundPairings.as_view(), name="pairings"),
    path(D + "rounds/<int:round>/byes/", views.RoundByes.as_view(), name="round_byes"),
    path(D + "rounds/<int:round>/clock/", clock.RoundClockView.as_view(), name="round_clock"),
    path(D + "games/", views.GameList.as_view(), name="games"),
    path(
        D + "rounds/<int:round>/boards/<int:board>/record/",
        gcg.GameRecordView.as_view(),
        name="game_record",
    ),
    path(D + "records.zip", gcg.DivisionRecordsZip.as_view(), name="records_zip"),
    path(D + "standings/", views.Standings.as_view(), name="standings"),
    path(D + "needs/", views.Needs.as_view(), name="needs"),
    path(D + "chances/", views.Chances.as_view(), name="chances"),
    path(D + "results/", views.RecordResult.as_view(), name="record_result"),
    path(D + "corrections/", views.CorrectResult.as_view(), name="correct_result"),
    path("venue/state/", venue.VenueState.as_view(), name="venue_state"),
    path("venue/push/", venue.VenuePush.as_view(), name="venue_push"),
    path("venue/release/", venue.VenueRelease.as_view(), name="venue_release"),
    path("venue/inbox/", venue.VenueInboxView.as_view(), name="venue_inbox"),
    path("venue/copy/", venue.VenueCopy.as_view(), name="venue_copy"),
    path("rating-lists/", views.RatingListList.as_view(), name="rating_lists"),
    path("rating-lists/<slug:slug>/ratings/", views.RatingListRatings.as_view(), name="ratings"),
    path("players/<int:pk>/", views.PlayerDetail.as_view(), name="player"),
    path("clubs/", clubs.ClubList.as_view(), name="clubs"),
    path("clubs/<slug:slug>/", clubs.ClubDetail.as_view(), name="club"),
    path("clubs/<slug:slug>/members/", clubs.ClubMembers.as_view(), name="club_members"),
    path("clubs/<slug:slug>/nights/", clubs.ClubNights.as_view(), name="club_nights"),
    path("clubs/<slug:slug>/seasons/", clubs.ClubSeasons.as_view(), name="club_seasons"),
    path(
        "clubs/<slug:slug>/seasons/<int:season>/ladder/",
        clubs.SeasonLadder.as_view(),
        name="season_ladder",
    ),
]

# The split view serves Swagger UI's start-up code as its own script (?script), so the page
# needs no inline script and runs under the site's Content-Security-Policy unchanged.
urlpatterns = [
    path("v1/", include((v1, "api"))),
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api_schema"), name="api_docs"),
    # anything else under /api/ (a negative player id, a slug with odd characters, a newline,
    # which "." would not match): JSON 404
    re_path(r"^[\s\S]*$", views.Unknown.as_view()),
]
