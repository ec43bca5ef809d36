"""Organizer-facing pages. Views parse and render; services do the work."""

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.shortcuts import render

from .models import Call, Challenge
from .permissions import PUBLIC_STATES


def home(request):
    calls = Call.objects.all()[:20]
    registered = Challenge.objects.filter(status__in=PUBLIC_STATES).select_related(
        "call"
    )[:50]
    return render(
        request, "registry/home.html", {"calls": calls, "registered": registered}
    )


@login_required
def dashboard(request):
    mine = (
        Challenge.objects.filter(Q(owner=request.user) | Q(co_organizers=request.user))
        .distinct()
        .select_related("call")
    )
    return render(request, "registry/dashboard.html", {"challenges": mine})
