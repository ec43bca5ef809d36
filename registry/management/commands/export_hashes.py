from pathlib import Path

from django.core.management.base import BaseCommand

from registry.chain_heads import published_list, read_list


class Command(BaseCommand):
    help = (
        "Write the current signed list of every registration's chain head "
        "(identifier, version, SHA-256, time; publishing a new list when a head "
        "changed), the text /registry/chain-heads.txt serves, to keep outside "
        "the database; check it later with `verify_registrations --against FILE`."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", help="Write to this file (default: stdout).")

    def handle(self, *args, **opts):
        published = published_list()
        if opts["output"]:
            Path(opts["output"]).write_text(published.text, encoding="utf-8")
            heads = len(read_list(published.text).heads)
            self.stderr.write(
                f"List {published.number}: {heads} chain head(s) written to "
                f"{opts['output']}."
            )
        else:
            self.stdout.write(published.text, ending="")
