from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.models import Role
from accounts.services import create_account
from registry.models import Call


class Command(BaseCommand):
    help = "Create a user account with its profile (chairs may be tied to a call)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--password", required=True)
        parser.add_argument("--email", default="")
        parser.add_argument("--institution", default="")
        parser.add_argument("--role", choices=Role.values, default=Role.ORGANIZER)
        parser.add_argument("--expertise", default="", help="comma-separated keywords")
        parser.add_argument("--call", help="slug of the call this chair chairs")

    @transaction.atomic
    def handle(self, *args, **opts):
        call = None
        if opts["call"]:
            call = Call.objects.filter(slug=opts["call"]).first()
            if call is None:
                raise CommandError(f"No call {opts['call']!r}; create it first.")
        try:
            user = create_account(
                username=opts["username"],
                password=opts["password"],
                email=opts["email"],
                institution=opts["institution"],
                role=opts["role"],
                expertise=opts["expertise"],
            )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        if call is not None and opts["role"] == Role.CHAIR:
            call.chairs.add(user)
        self.stdout.write(f"Created {user.username} ({opts['role']}).")
