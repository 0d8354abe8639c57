"""The table's pages and actions (namespace ``rolls``)."""

from __future__ import annotations

from django.urls import path

from rolls.views import (
    bridges,
    campaigns,
    contests,
    discord,
    display,
    export,
    history,
    language,
    overlay,
    pages,
    play,
    rules,
    stats,
    takeback,
)

app_name = "rolls"

urlpatterns = [
    # First, the requests a table sends all evening (a resolve tries each pattern in order).
    path("c/<int:pk>/characters/<int:character_id>/roll/", play.roll_create, name="roll-create"),
    path("c/<int:pk>/rolls/<int:roll_id>/follow-up/", play.follow_up, name="follow-up"),
    path("c/<int:pk>/characters/<int:character_id>/odds/", play.odds, name="odds"),
    path("campaigns/new/", campaigns.campaign_new, name="campaign-new"),
    path("join/<str:token>/", campaigns.join, name="join"),
    path("c/<int:pk>/", pages.campaign_page, name="campaign"),
    path("c/<int:pk>/session/", pages.session_page, name="session"),
    path("c/<int:pk>/history/", history.history_page, name="history"),
    path("c/<int:pk>/rolls/<int:roll_id>/", history.roll_page, name="roll"),
    path("c/<int:pk>/rolls/<int:roll_id>/void/", history.roll_void, name="roll-void"),
    path("c/<int:pk>/rolls/<int:roll_id>/take-back/", takeback.roll_take_back, name="roll-take-back"),
    path(
        "c/<int:pk>/rolls/<int:roll_id>/helper-condition/",
        history.roll_helper_condition,
        name="roll-helper-condition",
    ),
    path(
        "c/<int:pk>/rolls/<int:roll_id>/helper-strike/",
        history.roll_helper_strike,
        name="roll-helper-strike",
    ),
    path("c/<int:pk>/rolls/<int:roll_id>/reveal/", history.roll_reveal, name="roll-reveal"),
    path("c/<int:pk>/rolls/<int:roll_id>/note/", history.roll_note, name="roll-note"),
    path("c/<int:pk>/stats/", stats.campaign_stats, name="stats"),
    path("c/<int:pk>/stats/sessions/<int:session_id>/", stats.session_stats, name="stats-session"),
    path("c/<int:pk>/stats/characters/<int:character_id>/", stats.character_stats, name="stats-character"),
    path("c/<int:pk>/sessions/<int:session_id>/recap/", stats.session_recap, name="recap"),
    path("c/<int:pk>/export/", export.export_log, name="export"),
    path("c/<int:pk>/verify/", export.verify, name="verify-log"),
    path("c/<int:pk>/characters/<int:character_id>/", pages.character_page, name="character"),
    path("c/<int:pk>/session/start/", campaigns.session_start, name="session-start"),
    path("c/<int:pk>/session/end/", campaigns.session_end, name="session-end"),
    path("c/<int:pk>/mystery/", campaigns.mystery_start, name="mystery-start"),
    path("c/<int:pk>/long-rest/", campaigns.long_rest, name="long-rest"),
    path("c/<int:pk>/join-link/", campaigns.join_link_rotate, name="join-link-rotate"),
    path("c/<int:pk>/dice/", campaigns.dice_mode, name="dice-mode"),
    path("c/<int:pk>/language/", language.language_set, name="language-set"),
    path("c/<int:pk>/display-link/", display.display_rotate, name="display-rotate"),
    path("display/<str:token>/", display.display_page, name="display"),
    path("c/<int:pk>/overlay-link/", overlay.overlay_rotate, name="overlay-rotate"),
    path("overlay/<str:token>/", overlay.overlay_page, name="overlay"),
    path("c/<int:pk>/discord/", discord.discord_save, name="discord-save"),
    path("c/<int:pk>/discord/remove/", discord.discord_remove, name="discord-remove"),
    path("c/<int:pk>/discord/test/", discord.discord_test, name="discord-test"),
    path("c/<int:pk>/members/<int:member_id>/remove/", campaigns.member_remove, name="member-remove"),
    path("c/<int:pk>/removed/<int:ban_id>/readmit/", campaigns.member_readmit, name="member-readmit"),
    path("c/<int:pk>/characters/new/", campaigns.character_new, name="character-new"),
    path(
        "c/<int:pk>/characters/<int:character_id>/sheet/", campaigns.character_sheet, name="character-sheet"
    ),
    path("c/<int:pk>/characters/<int:character_id>/edit/", campaigns.character_edit, name="character-edit"),
    path(
        "c/<int:pk>/characters/<int:character_id>/correct/",
        campaigns.character_correct,
        name="character-correct",
    ),
    path(
        "c/<int:pk>/characters/<int:character_id>/luck-ability/",
        campaigns.luck_for_ability,
        name="luck-ability",
    ),
    path("c/<int:pk>/npc-roll/", play.npc_roll, name="npc-roll"),
    path("c/<int:pk>/npc-odds/", play.npc_odds, name="npc-odds"),
    path("c/<int:pk>/characters/<int:character_id>/call/", play.call_create, name="call-create"),
    path("c/<int:pk>/calls/new/", play.calls_create, name="calls-create"),
    path("c/<int:pk>/contests/new/", contests.contest_create, name="contest-create"),
    path("c/<int:pk>/contests/<int:contest_id>/", history.contest_page, name="contest"),
    path(
        "c/<int:pk>/characters/<int:character_id>/challenge/",
        contests.challenge_create,
        name="challenge-create",
    ),
    path("c/<int:pk>/contests/<int:contest_id>/answer/", contests.contest_answer, name="contest-answer"),
    path(
        "c/<int:pk>/contests/<int:contest_id>/sides/<int:side_id>/roll/",
        contests.contest_roll,
        name="contest-roll",
    ),
    path(
        "c/<int:pk>/contests/<int:contest_id>/sides/<int:side_id>/act/",
        contests.contest_act,
        name="contest-act",
    ),
    path("c/<int:pk>/contests/extended/new/", contests.extended_create, name="extended-create"),
    path(
        "c/<int:pk>/contests/<int:contest_id>/extended/<int:character_id>/roll/",
        contests.extended_roll,
        name="extended-roll",
    ),
    path("c/<int:pk>/contests/<int:contest_id>/close/", contests.contest_close, name="contest-close"),
    path(
        "c/<int:pk>/contests/<int:contest_id>/attacker/", contests.contest_attacker, name="contest-attacker"
    ),
    path("c/<int:pk>/contests/<int:contest_id>/cancel/", contests.contest_cancel, name="contest-cancel"),
    path("c/<int:pk>/calls/<int:call_id>/close/", play.call_close, name="call-close"),
    path("c/<int:pk>/feed-keys/", bridges.feed_token_create, name="feed-token-create"),
    path("c/<int:pk>/feed-keys/<int:token_id>/revoke/", bridges.feed_token_revoke, name="feed-token-revoke"),
    # The feed for other tools: a key, no login (docs/feed.md); served apart (tabletop/asgi.py).
    path("api/feed/<int:campaign_id>/events", bridges.feed_events, name="feed-events"),
    path("rules/", rules.rules_index, name="rules"),
    path("rules/<slug:slug>/", rules.rules_system, name="rules-system"),
]
