import datetime as dt
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db.models import QuerySet
from django.utils import timezone

from registry.chain_heads import (
    ChainHeadsFormatError,
    compare_with_copy,
    read_list,
)
from registry.chain_signing import SigningKeyError, public_key, read_public_key
from registry.models import Registration, RegistrationVersion
from registry.registration import verify_registrations
from registry.verifiers import further_verifications


def add_selection_arguments(parser) -> None:
    """Which registrations to verify (default: all)."""
    parser.add_argument("--call", help="only the registrations of this call (slug)")
    parser.add_argument(
        "--challenge", help="only this registration (identifier or challenge id)"
    )
    parser.add_argument(
        "--since",
        type=dt.date.fromisoformat,
        help="only registrations with a version written on or after this date "
        "(YYYY-MM-DD; their whole chains are verified)",
    )


def selected_registrations(opts: dict) -> QuerySet[Registration] | None:
    """The registrations `--call`, `--challenge` and `--since` select; None = all."""
    if not (opts.get("call") or opts.get("challenge") or opts.get("since")):
        return None
    registrations = Registration.objects.all()
    if slug := opts.get("call"):
        registrations = registrations.filter(call__slug=slug)
    if wanted := opts.get("challenge"):
        registrations = (
            registrations.filter(challenge_id=int(wanted))
            if str(wanted).isdigit()
            else registrations.filter(identifier=wanted)
        )
    if since := opts.get("since"):
        start = timezone.make_aware(dt.datetime.combine(since, dt.time.min))
        registrations = registrations.filter(
            pk__in=RegistrationVersion.objects.filter(created__gte=start).values(
                "registration_id"
            )
        )
    return registrations


def add_against_argument(parser) -> None:
    parser.add_argument(
        "--against",
        metavar="FILE",
        help="Also check a chain-heads list published earlier (`export_hashes`, "
        "chain-heads.txt): its signature, that the database's lists lead from it "
        "to the current one, and that every head in it is still in the database.",
    )
    parser.add_argument(
        "--public-key",
        metavar="PEM",
        help="The registry's public key to check the signature with "
        "(default: the public half of CHAIN_HEADS_SIGNING_KEY).",
    )
    parser.add_argument(
        "--allow-unsigned",
        action="store_true",
        help="Compare the heads of an unsigned export (made before lists were "
        "signed) instead of refusing it.",
    )


def problems_against(
    path: str, *, key_path: str | None = None, allow_unsigned: bool = False
) -> list:
    """What keeps the database from extending the list in `path`."""
    try:
        copy = read_list(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ChainHeadsFormatError) as exc:
        raise CommandError(f"{path}: {exc}") from None
    try:
        key = read_public_key(Path(key_path).read_bytes()) if key_path else public_key()
    except (OSError, SigningKeyError) as exc:
        raise CommandError(f"public key: {exc}") from None
    return compare_with_copy(copy, key, allow_unsigned=allow_unsigned)


class Command(BaseCommand):
    help = (
        "Recompute every registration hash and chain link, and what other apps "
        "declare (the hashes of published results); fail on any mismatch."
    )

    def add_arguments(self, parser):
        add_selection_arguments(parser)
        add_against_argument(parser)

    def handle(self, *args, **opts):
        selection = selected_registrations(opts)
        result = verify_registrations(selection)
        problems = list(result.problems)
        further = further_verifications(selection)
        for _things, _count, found in further:
            problems += found
        if opts.get("against"):
            problems += problems_against(
                opts["against"],
                key_path=opts.get("public_key"),
                allow_unsigned=opts.get("allow_unsigned", False),
            )
        for p in problems:
            self.stderr.write(f"{p.identifier} v{p.version}: {p.message}")
        if problems:
            raise CommandError(f"{len(problems)} problem(s) found.")
        if selection is not None and result.registrations == 0:
            raise CommandError("No registration matches the selection.")
        self.stdout.write(
            f"OK: {result.registrations} registrations, "
            f"{result.versions} versions verified."
        )
        for things, count, _found in further:
            if count:
                self.stdout.write(f"OK: {count} {things} verified.")
