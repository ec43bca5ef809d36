from django.urls import include, path

from . import api

challenge = [
    path("assignments/", api.Assignments.as_view(), name="assignments"),
    path("suggestions/", api.Suggestions.as_view(), name="reviewer-suggestions"),
    path("reviews/", api.Reviews.as_view(), name="reviews"),
    path("decision/", api.DecisionView.as_view(), name="decision"),
    path("resubmit/", api.Resubmit.as_view(), name="resubmit"),
    path("diff/", api.Diff.as_view(), name="diff"),
    path("history/", api.History.as_view(), name="history"),
    path("checks/", api.Checks.as_view(), name="checks"),
]
assignment = [
    path("", api.AssignmentDetail.as_view(), name="assignment"),
    path("decline/", api.Decline.as_view(), name="decline"),
]

urlpatterns = [
    path("challenges/<int:pk>/", include(challenge)),
    path("assignments/<int:pk>/", include(assignment)),
    path("conflicts/", api.Conflicts.as_view(), name="conflicts"),
]
