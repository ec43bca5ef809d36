from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError

from audit.roles import RoleError, grant_application_role


class Command(BaseCommand):
    help = (
        "Run as the tables' owner (after `migrate`): give the application's "
        "PostgreSQL role row access (SELECT, INSERT, UPDATE, DELETE) to every "
        "table and sequence, now and for tables created later, and nothing "
        "else (no TRUNCATE, no ownership)."
    )

    def add_arguments(self, parser):
        who = parser.add_mutually_exclusive_group(required=True)
        who.add_argument("role", nargs="?", help="the application's role")
        who.add_argument(
            "--url",
            help="the application's DATABASE_URL (its user is the role)",
        )

    def handle(self, *args, role=None, url=None, **opts):
        role = role or urlsplit(url).username
        if not role:
            raise CommandError("the URL names no user")
        try:
            statements = grant_application_role(role)
        except RoleError as exc:
            raise CommandError(str(exc)) from None
        for statement in statements:
            self.stdout.write(statement + ";")
        self.stdout.write(f"OK: {role} reads and writes rows and owns nothing.")
