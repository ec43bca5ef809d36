"""Validate the DataCite XML of every registration version against the XSD."""

from django.core.management.base import BaseCommand, CommandError

from publicrecord.citation import citation_record, datacite_xml, validate_datacite
from registry.models import RegistrationVersion


class Command(BaseCommand):
    help = "Validate every registration version's DataCite XML (shipped XSD 4.6)."

    def handle(self, *args, **options):
        failures = 0
        versions = RegistrationVersion.objects.select_related("registration")
        for version in versions.order_by("registration_id", "number").iterator():
            errors = validate_datacite(datacite_xml(citation_record(version)))
            if errors:
                failures += 1
                name = f"{version.registration.identifier} v{version.number}"
                self.stderr.write(f"{name}: {'; '.join(errors)}")
        if failures:
            raise CommandError(f"{failures} version(s) do not validate.")
        self.stdout.write(f"{versions.count()} version(s) valid.")
