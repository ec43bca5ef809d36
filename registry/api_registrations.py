"""REST API for registrations: register, browse, canonical bytes, amendments, diffs."""

from __future__ import annotations

import json

from django.core.validators import RegexValidator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.pagination import (
    CURSOR_PARAMETER,
    PAGE_PARAMETERS,
    KeysetPagination,
    PageNumberPagination,
    paginated,
    paginated_schema,
)

from .access import conflict, get_challenge, public_registration
from .amendments import approve_amendment, propose_amendment, reject_amendment
from .design import Design, diff_designs
from .models import (
    Amendment,
    Registration,
    RegistrationListing,
    RegistrationVersion,
)
from .permissions import can_view_challenge, is_chair, is_organizer
from .registration import register_challenge
from .search import ListingFilters, search_listings
from .selectors import amendment_numbers
from .serializers import (
    AmendmentSerializer,
    CanonicalDocumentSerializer,
    NoteSerializer,
    RegisteredSerializer,
    RegistrationDiffSerializer,
    RegistrationListItemSerializer,
    RegistrationSerializer,
)
from .services import TransitionError


def version_data(version: RegistrationVersion) -> dict:
    return {
        "version": version.number,
        "sha256": version.sha256,
        "previous_sha256": version.previous_sha256 or None,
        "created": version.created.isoformat(),
        "created_by": version.created_by.get_username() if version.created_by else None,
        "post_hoc": version.post_hoc,
        "justification": version.justification,
    }


def registration_data(registration: Registration, *, versions: bool = True) -> dict:
    data = {
        "identifier": registration.identifier,
        "challenge": registration.challenge.name,
        "challenge_id": registration.challenge_id,
        "call": registration.call.slug,
        "created": registration.created.isoformat(),
    }
    all_versions = list(registration.versions.select_related("created_by"))
    data["latest_version"] = all_versions[-1].number if all_versions else None
    data["sha256"] = all_versions[-1].sha256 if all_versions else None
    if versions:
        data["versions"] = [version_data(v) for v in all_versions]
    return data


def amendment_data(amendment: Amendment, number: int | None = None) -> dict:
    """An amendment as JSON; `number` (within its registration, as the page
    shows it) is looked up when not given."""
    if number is None:
        number = amendment_numbers(amendment.registration)[amendment.pk]
    return {
        "id": amendment.pk,
        "number": number,
        "registration": amendment.registration.identifier,
        "status": amendment.status,
        "base_version": amendment.base_version,
        "justification": amendment.justification,
        "changes": amendment.changes,
        "version": amendment.version.number if amendment.version else None,
        "created": amendment.created.isoformat(),
    }


class Register(APIView):
    @extend_schema(
        summary="Register an accepted proposal",
        request=None,
        responses={201: RegisteredSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        try:
            registration = register_challenge(challenge=challenge, actor=request.user)
        except TransitionError as exc:
            return conflict(exc)
        version = registration.versions.get()
        return Response(
            {
                "identifier": registration.identifier,
                "version": version.number,
                "sha256": version.sha256,
            },
            status=status.HTTP_201_CREATED,
        )


YEAR_PATTERN = r"^\s*(0*[1-9][0-9]{0,3})?\s*$"  # 1-9999, or blank


class RegistrationFilters(serializers.Serializer):
    """The query parameters of the registration list (all optional)."""

    q = serializers.CharField(
        required=False, allow_blank=True, max_length=200, help_text="identifier or text"
    )
    call = serializers.CharField(required=False, allow_blank=True, max_length=60)
    year = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=100,
        # the schema states what validate_year accepts
        validators=[RegexValidator(YEAR_PATTERN, "This is not a year (1-9999).")],
    )
    category = serializers.CharField(required=False, allow_blank=True, max_length=200)
    modality = serializers.CharField(required=False, allow_blank=True, max_length=200)
    metric = serializers.CharField(required=False, allow_blank=True, max_length=200)
    method = serializers.CharField(required=False, allow_blank=True, max_length=200)
    tasks = serializers.IntegerField(required=False, min_value=1, max_value=1000)

    def validate_year(self, value: str) -> int | None:
        value = value.strip()
        if not value:
            return None
        if not (value.isascii() and value.isdigit() and 1 <= int(value) <= 9999):
            raise serializers.ValidationError(f"{value[:20]!r} is not a year (1-9999).")
        return int(value)

    def filters(self) -> ListingFilters:
        data = dict(self.validated_data)
        return ListingFilters(text=data.pop("q", ""), **data)


def listing_data(listing: RegistrationListing) -> dict:
    """A registration in a list: its latest version, without the version history."""
    return {
        "identifier": listing.identifier,
        "challenge": listing.name,
        "challenge_id": listing.registration.challenge_id,
        "call": listing.call.slug,
        "created": listing.registered.isoformat(),
        "latest_version": listing.version_number,
        "sha256": listing.latest.sha256,
        "task_count": listing.task_count,
        "categories": listing.categories,
        "modalities": listing.modalities,
    }


class RegistrationList(APIView):
    """Newest first, in keyset pages (``?cursor=``); a text search (``q``) is
    ordered by relevance, in numbered pages (``?page=``)."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="Registrations, newest first (filters and search)",
        operation_id="registrations_list",
        parameters=[RegistrationFilters, *PAGE_PARAMETERS, CURSOR_PARAMETER],
        responses=paginated_schema(
            "RegistrationListPage", RegistrationListItemSerializer()
        ),
    )
    def get(self, request: Request) -> Response:
        query = RegistrationFilters(data=request.query_params)
        query.is_valid(raise_exception=True)
        filters = query.filters()
        listings = (
            search_listings(filters)
            .select_related("registration", "call", "latest")
            .defer("text", "vector", "latest__canonical", "latest__justification")
        )
        paginator = (
            PageNumberPagination()
            if filters.text.strip()
            else KeysetPagination(ordering=("-registered", "-id"))
        )
        return paginated(
            request,
            listings,
            lambda page: [listing_data(listing) for listing in page],
            paginator=paginator,
            view=self,
        )


class RegistrationDetail(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="A registration and its versions", responses=RegistrationSerializer
    )
    def get(self, request: Request, identifier: str) -> Response:
        return Response(registration_data(public_registration(identifier)))


class CanonicalBytes(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="A version's registered bytes (hash them: X-Content-SHA256)",
        responses={(200, "application/json"): CanonicalDocumentSerializer},
    )
    def get(self, request: Request, identifier: str, number: int) -> HttpResponse:
        version = get_object_or_404(
            RegistrationVersion, registration__identifier=identifier, number=number
        )
        response = HttpResponse(
            version.canonical.encode("utf-8"), content_type="application/json"
        )
        response["Content-Disposition"] = (
            f'attachment; filename="{identifier}-v{number}.json"'
        )
        response["X-Content-SHA256"] = version.sha256
        return response


class RegistrationDiff(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="What changed between two registered versions",
        parameters=[
            OpenApiParameter("from", int, required=True),
            OpenApiParameter("to", int, required=True),
        ],
        responses=RegistrationDiffSerializer,
    )
    def get(self, request: Request, identifier: str) -> Response:
        registration = public_registration(identifier)
        numbers = {}
        for key in ("from", "to"):
            raw = request.query_params.get(key, "")
            if not raw.isdigit():
                return Response({key: ["Give a version number."]}, status=400)
            numbers[key] = int(raw)
        documents = {}
        for key, number in numbers.items():
            version = registration.versions.filter(number=number).first()
            if version is None:
                return Response({key: [f"No version {number}."]}, status=404)
            documents[key] = Design.from_dict(json.loads(version.canonical)["design"])
        changes = diff_designs(documents["from"], documents["to"])
        return Response({**numbers, "changes": [c.to_dict() for c in changes]})


class AmendmentWrite(serializers.Serializer):
    justification = serializers.CharField()
    challenge = serializers.DictField(required=False)
    tasks = serializers.DictField(required=False)


class AmendmentList(APIView):
    # the approved amendments are public, as on the amendments page
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        summary="Amendments (others than organizers and chairs: approved ones)",
        responses=AmendmentSerializer(many=True),
    )
    def get(self, request: Request, identifier: str) -> Response:
        registration = public_registration(identifier)
        challenge = registration.challenge
        amendments = registration.amendments.select_related("version", "registration")
        if not (
            is_organizer(request.user, challenge)
            or is_chair(request.user, challenge)
            or request.user.is_staff
        ):
            amendments = amendments.filter(status="approved")
        numbers = amendment_numbers(registration)
        return Response([amendment_data(a, numbers[a.pk]) for a in amendments])

    @extend_schema(
        summary="Propose an amendment (organizers)",
        request=AmendmentWrite,
        responses={201: AmendmentSerializer},
    )
    def post(self, request: Request, identifier: str) -> Response:
        registration = public_registration(identifier)
        data = AmendmentWrite(data=request.data)
        data.is_valid(raise_exception=True)
        changes = {
            k: request.data[k] for k in ("challenge", "tasks") if k in request.data
        }
        amendment = propose_amendment(
            registration=registration,
            actor=request.user,
            justification=data.validated_data["justification"],
            changes=changes,
        )
        return Response(amendment_data(amendment), status=status.HTTP_201_CREATED)


def get_amendment(request: Request, pk: int) -> Amendment:
    amendment = get_object_or_404(
        Amendment.objects.select_related("registration__challenge"), pk=pk
    )
    if not can_view_challenge(request.user, amendment.registration.challenge):
        raise Http404  # no existence leak
    return amendment


class Decide(APIView):
    approve = True

    @extend_schema(request=NoteSerializer, responses=AmendmentSerializer)
    def post(self, request: Request, pk: int) -> Response:
        amendment = get_amendment(request, pk)
        note = str(request.data.get("note", ""))[:5000]
        try:
            if self.approve:
                approve_amendment(amendment=amendment, actor=request.user, note=note)
            else:
                reject_amendment(amendment=amendment, actor=request.user, note=note)
        except TransitionError as exc:
            return conflict(exc)
        amendment.refresh_from_db()
        return Response(amendment_data(amendment))


@extend_schema_view(post=extend_schema(summary="Approve an amendment (chairs)"))
class Approve(Decide):
    approve = True


@extend_schema_view(post=extend_schema(summary="Reject an amendment (chairs)"))
class Reject(Decide):
    approve = False
