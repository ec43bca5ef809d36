from django.urls import include, path

from . import api, api_exports, api_plans
from . import api_registrations as reg
from .page_cache import cache_public_get

# Routes under one resource, written once below its prefix.
challenge = [
    path("", api.ChallengeDetail.as_view(), name="challenge"),
    path(
        "export.json",
        api_exports.ChallengeExportJson.as_view(),
        name="challenge-export-json",
    ),
    path(
        "design.pdf",
        api_exports.ChallengeDesignPdf.as_view(),
        name="challenge-design-pdf",
    ),
    path("tasks/", api.TaskList.as_view(), name="tasks"),
    path(
        "answers/<int:number>/", api.ChallengeAnswer.as_view(), name="challenge-answer"
    ),
    path("completeness/", api.Completeness.as_view(), name="completeness"),
    path("submit/", api.Submit.as_view(), name="submit"),
    path("register/", reg.Register.as_view(), name="register"),
]
task = [
    path("", api.TaskDetail.as_view(), name="task"),
    path("answers/<int:number>/", api.TaskAnswer.as_view(), name="task-answer"),
    path("plan/", api_plans.TaskPlan.as_view(), name="task-plan"),
]
registration = [
    path("", cache_public_get(reg.RegistrationDetail.as_view()), name="registration"),
    path(
        "versions/<int:number>/canonical.json",
        reg.CanonicalBytes.as_view(),
        name="registration-canonical",
    ),
    path("diff/", reg.RegistrationDiff.as_view(), name="registration-diff"),
    path("amendments/", reg.AmendmentList.as_view(), name="amendments"),
]
amendment = [
    path("approve/", reg.Approve.as_view(), name="approve"),
    path("reject/", reg.Reject.as_view(), name="reject"),
]

urlpatterns = [
    path("parameters/", api.ParameterList.as_view(), name="parameters"),
    path("challenges/", api.ChallengeList.as_view(), name="challenges"),
    path(
        "challenges/import/",
        api_exports.ChallengeImport.as_view(),
        name="challenge-import",
    ),
    path("challenges/<int:pk>/", include(challenge)),
    path("tasks/<int:pk>/", include(task)),
    path(
        "registrations/",
        cache_public_get(reg.RegistrationList.as_view()),
        name="registrations",
    ),
    path("registrations/<slug:identifier>/", include(registration)),
    path("amendments/<int:pk>/", include(amendment)),
]
