from django.urls import path

from . import api

urlpatterns = [
    path(
        "challenges/<int:pk>/assignments/",
        api.Assignments.as_view(),
        name="assignments",
    ),
    path(
        "challenges/<int:pk>/suggestions/",
        api.Suggestions.as_view(),
        name="reviewer-suggestions",
    ),
    path("challenges/<int:pk>/reviews/", api.Reviews.as_view(), name="reviews"),
    path("challenges/<int:pk>/decision/", api.DecisionView.as_view(), name="decision"),
    path("challenges/<int:pk>/resubmit/", api.Resubmit.as_view(), name="resubmit"),
    path("challenges/<int:pk>/diff/", api.Diff.as_view(), name="diff"),
    path("challenges/<int:pk>/history/", api.History.as_view(), name="history"),
    path("challenges/<int:pk>/checks/", api.Checks.as_view(), name="checks"),
    path(
        "assignments/<int:pk>/",
        api.AssignmentDetail.as_view(),
        name="assignment",
    ),
    path("assignments/<int:pk>/decline/", api.Decline.as_view(), name="decline"),
    path("conflicts/", api.Conflicts.as_view(), name="conflicts"),
]
