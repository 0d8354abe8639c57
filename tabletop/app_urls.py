"""Accounts (namespace ``tabletop``): the home page, signing up, logging in and out."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from tabletop import phone_app, views

app_name = "tabletop"

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(template_name="tabletop/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/", views.account, name="account"),
    # The phone as an app: at the root, so the worker's scope is the whole site.
    path("manifest.webmanifest", phone_app.manifest, name="manifest"),
    path("sw.js", phone_app.service_worker, name="service-worker"),
    path("offline/", phone_app.offline, name="offline"),
]
