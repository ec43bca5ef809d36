import time

from django.core.management.base import BaseCommand, CommandError

from registry.seeding import ForeignRegistrationsError, seed_registry


class Command(BaseCommand):
    help = (
        "Register N realistic seeded designs (all parameters, 1-5 tasks) for "
        "benchmarks; refuses a database with other registrations unless --force."
    )

    def add_arguments(self, parser):
        parser.add_argument("--count", type=int, default=10_000)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--force",
            action="store_true",
            help="seed even though the database holds registrations of its own",
        )

    def handle(self, *args, count: int, seed: int, force: bool, **opts):
        if count < 1:
            raise CommandError("--count: give at least 1.")
        started = time.monotonic()

        def progress(done: int) -> None:
            if done % 1000 == 0 or done == count:
                rate = done / (time.monotonic() - started)
                self.stdout.write(f"  {done}/{count} registered ({rate:.0f}/s)")

        try:
            total = seed_registry(count, seed=seed, force=force, progress=progress)
        except ForeignRegistrationsError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"OK: {count} designs registered in {time.monotonic() - started:.0f} s "
            f"({total} seeded registrations in the database)."
        )
