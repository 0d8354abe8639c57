"""The campaign, account and session pages (namespace ``tabletop``)."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from tabletop import views

app_name = "tabletop"

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(template_name="tabletop/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/", views.account, name="account"),
    path("campaigns/new/", views.campaign_new, name="campaign-new"),
    path("c/<int:pk>/", views.campaign_page, name="campaign"),
    path("c/<int:pk>/session/", views.session_page, name="session"),
    path("c/<int:pk>/session/start/", views.session_start, name="session-start"),
    path("c/<int:pk>/session/end/", views.session_end, name="session-end"),
    path("c/<int:pk>/mystery/", views.mystery_start, name="mystery-start"),
    path("c/<int:pk>/long-rest/", views.long_rest, name="long-rest"),
    path("c/<int:pk>/join-link/", views.join_link_rotate, name="join-link-rotate"),
    path("c/<int:pk>/members/<int:member_id>/remove/", views.member_remove, name="member-remove"),
    path("c/<int:pk>/history/", views.history, name="history"),
    path("c/<int:pk>/characters/new/", views.character_new, name="character-new"),
    path("c/<int:pk>/characters/<int:character_id>/", views.character_page, name="character"),
    path("c/<int:pk>/characters/<int:character_id>/sheet/", views.character_sheet, name="character-sheet"),
    path("c/<int:pk>/characters/<int:character_id>/edit/", views.character_edit, name="character-edit"),
    path(
        "c/<int:pk>/characters/<int:character_id>/correct/", views.character_correct, name="character-correct"
    ),
    path("join/<str:token>/", views.join, name="join"),
]
