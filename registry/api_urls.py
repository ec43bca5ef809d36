from django.urls import path

from . import api, api_exports
from . import api_registrations as reg
from .page_cache import cache_public_get

urlpatterns = [
    path("parameters/", api.ParameterList.as_view(), name="parameters"),
    path("challenges/", api.ChallengeList.as_view(), name="challenges"),
    path(
        "challenges/import/",
        api_exports.ChallengeImport.as_view(),
        name="challenge-import",
    ),
    path("challenges/<int:pk>/", api.ChallengeDetail.as_view(), name="challenge"),
    path(
        "challenges/<int:pk>/export.json",
        api_exports.ChallengeExportJson.as_view(),
        name="challenge-export-json",
    ),
    path(
        "challenges/<int:pk>/design.pdf",
        api_exports.ChallengeDesignPdf.as_view(),
        name="challenge-design-pdf",
    ),
    path("challenges/<int:pk>/tasks/", api.TaskList.as_view(), name="tasks"),
    path(
        "challenges/<int:pk>/answers/<int:number>/",
        api.ChallengeAnswer.as_view(),
        name="challenge-answer",
    ),
    path(
        "challenges/<int:pk>/completeness/",
        api.Completeness.as_view(),
        name="completeness",
    ),
    path("challenges/<int:pk>/submit/", api.Submit.as_view(), name="submit"),
    path("tasks/<int:pk>/", api.TaskDetail.as_view(), name="task"),
    path(
        "tasks/<int:pk>/answers/<int:number>/",
        api.TaskAnswer.as_view(),
        name="task-answer",
    ),
    path("challenges/<int:pk>/register/", reg.Register.as_view(), name="register"),
    path(
        "registrations/",
        cache_public_get(reg.RegistrationList.as_view()),
        name="registrations",
    ),
    path(
        "registrations/<slug:identifier>/",
        cache_public_get(reg.RegistrationDetail.as_view()),
        name="registration",
    ),
    path(
        "registrations/<slug:identifier>/versions/<int:number>/canonical.json",
        reg.CanonicalBytes.as_view(),
        name="registration-canonical",
    ),
    path(
        "registrations/<slug:identifier>/diff/",
        reg.RegistrationDiff.as_view(),
        name="registration-diff",
    ),
    path(
        "registrations/<slug:identifier>/amendments/",
        reg.AmendmentList.as_view(),
        name="amendments",
    ),
    path("amendments/<int:pk>/approve/", reg.Approve.as_view(), name="approve"),
    path("amendments/<int:pk>/reject/", reg.Reject.as_view(), name="reject"),
]
