from __future__ import annotations

from django.urls import path

from rolls import views

app_name = "rolls"

urlpatterns = [
    path("c/<int:pk>/characters/<int:character_id>/roll/", views.roll_create, name="roll-create"),
    path("c/<int:pk>/characters/<int:character_id>/odds/", views.odds, name="odds"),
    path("c/<int:pk>/rolls/<int:roll_id>/follow-up/", views.follow_up, name="follow-up"),
    path("c/<int:pk>/npc-roll/", views.npc_roll, name="npc-roll"),
    path("c/<int:pk>/characters/<int:character_id>/call/", views.call_create, name="call-create"),
    path("c/<int:pk>/calls/<int:call_id>/close/", views.call_close, name="call-close"),
    path("rules/", views.rules_index, name="rules"),
    path("rules/<slug:slug>/", views.rules_system, name="rules-system"),
]
