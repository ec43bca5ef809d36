import datetime as dt

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from registry.services import create_call


def iso_date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"--deadline: {text!r} is not YYYY-MM-DD.") from None


class Command(BaseCommand):
    help = "Create a call for challenges, e.g. `createcall miccai-2027 --title ...`."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--title", required=True)
        parser.add_argument(
            "--threshold",
            type=int,
            default=90,
            help="completeness needed to submit, in percent",
        )
        parser.add_argument("--deadline", help="submission deadline, YYYY-MM-DD")

    def handle(self, *args, **opts):
        deadline = iso_date(opts["deadline"]) if opts["deadline"] else None
        try:
            call = create_call(
                slug=opts["slug"],
                title=opts["title"],
                threshold=opts["threshold"],
                deadline=deadline,
            )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stdout.write(f"Created call {call.slug} ({call.title}).")
