from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from registry.chain_heads import (
    ChainHeadsFormatError,
    compare_with_heads,
    parse_chain_heads,
)
from registry.models import Registration, RegistrationVersion
from registry.registration import verify_all_registrations


def add_against_argument(parser) -> None:
    parser.add_argument(
        "--against",
        metavar="FILE",
        help="Also compare with chain heads exported earlier (`export_hashes`).",
    )


def problems_against(path: str) -> list:
    """The differences between the database and an `export_hashes` file."""
    try:
        heads = parse_chain_heads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ChainHeadsFormatError) as exc:
        raise CommandError(f"{path}: {exc}") from None
    return compare_with_heads(heads)


class Command(BaseCommand):
    help = "Recompute every registration hash and chain link; fail on any mismatch."

    def add_arguments(self, parser):
        add_against_argument(parser)

    def handle(self, *args, **opts):
        problems = verify_all_registrations()
        if opts.get("against"):
            problems += problems_against(opts["against"])
        for p in problems:
            self.stderr.write(f"{p.identifier} v{p.version}: {p.message}")
        if problems:
            raise CommandError(f"{len(problems)} problem(s) found.")
        self.stdout.write(
            f"OK: {Registration.objects.count()} registrations, "
            f"{RegistrationVersion.objects.count()} versions verified."
        )
