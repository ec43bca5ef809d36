"""Pages for the JSON export/import and the design-document PDF of a proposal.

Kept apart from `views.py` (the organizer editor) so both can grow separately.
"""

from __future__ import annotations

import re

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from .api_exports import design_pdf_url, json_download, pdf_download
from .exports import MAX_IMPORT_BYTES, ImportRefusedError, import_challenge
from .exports.proposal_json import parse_document, too_big_message
from .models import Call
from .permissions import challenges_visible_to


class ImportForm(forms.Form):
    file = forms.FileField(
        label="Exported proposal (.json)",
        help_text="A file downloaded with “Export JSON”, at most 5 MB.",
    )
    call = forms.ModelChoiceField(
        queryset=Call.objects.all(),
        required=False,
        to_field_name="slug",
        empty_label="The call named in the file",
        help_text="Import into another call instead of the one in the file.",
    )


def visible_challenge(request, pk: int):
    """The proposal if the user may see it; 404 otherwise."""
    queryset = challenges_visible_to(request.user).select_related("call", "owner")
    return get_object_or_404(queryset, pk=pk)


@require_GET
def export_json(request, pk: int):
    return json_download(visible_challenge(request, pk))


@require_GET
def design_pdf(request, pk: int):
    challenge = visible_challenge(request, pk)
    return pdf_download(challenge, registry_url=design_pdf_url(challenge))


@login_required
@require_http_methods(["GET", "POST"])
def import_proposal(request):
    errors: list[str] = []
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > MAX_IMPORT_BYTES:
                raise ImportRefusedError([too_big_message()])
            challenge = import_challenge(
                parse_document(upload.read()),
                owner=request.user,
                call=form.cleaned_data["call"],
                source=upload.name or "JSON file",
            )
        except ImportRefusedError as exc:
            # "file: is empty" is the API's field path; a page says "The file".
            errors = [re.sub(r"^file: ", "The file ", e) for e in exc.errors]
        else:
            messages.success(
                request,
                f"Imported “{challenge.name}” as a new draft in {challenge.call}.",
            )
            return redirect("registry:dashboard")
    mine = (
        challenges_visible_to(request.user).select_related("call").order_by("-updated")
    )
    return render(
        request,
        "registry/import.html",
        {"form": form, "errors": errors, "challenges": mine[:100]},
    )
