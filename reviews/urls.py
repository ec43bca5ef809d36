from django.urls import path

from . import views

app_name = "reviews"

proposal = "proposals/<int:pk>/"

urlpatterns = [
    path("start/", views.landing, name="landing"),
    path("calls/", views.calls, name="calls"),
    path("calls/<int:pk>/", views.call_overview, name="call"),
    path(proposal, views.manage, name="manage"),
    path(f"{proposal}assign/", views.assign, name="assign"),
    path(f"{proposal}decide/", views.decide, name="decide"),
    path(f"{proposal}review/", views.review, name="review"),
    path(f"{proposal}resubmit/", views.resubmit, name="resubmit"),
    path("mine/", views.my_reviews, name="mine"),
    path("conflicts/", views.conflicts, name="conflicts"),
    path("assignments/<int:pk>/decline/", views.decline, name="decline"),
    path("assignments/<int:pk>/unassign/", views.unassign, name="unassign"),
    path("assignments/<int:pk>/role/", views.change_role, name="change-role"),
]
