from pathlib import Path

from django.core.management.base import BaseCommand

from registry.chain_heads import chain_heads, chain_heads_text


class Command(BaseCommand):
    help = (
        "Write every registration's chain head (identifier, version, SHA-256, "
        "time) as text, to keep outside the database; check it later with "
        "`verify_registrations --against FILE`."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", help="Write to this file (default: stdout).")

    def handle(self, *args, **opts):
        heads = chain_heads()
        text = chain_heads_text(heads)
        if opts["output"]:
            Path(opts["output"]).write_text(text, encoding="utf-8")
            self.stderr.write(
                f"{len(heads)} chain head(s) written to {opts['output']}."
            )
        else:
            self.stdout.write(text, ending="")
