"""The schema of what the results and analysis API answers (read only)."""

from rest_framework import serializers


class RunFieldsSerializer(serializers.Serializer):
    """`analysis.run_state.run_fields`: what every kind of run shows."""

    id = serializers.IntegerField()
    status = serializers.CharField()
    progress = serializers.IntegerField()
    engine_version = serializers.CharField(allow_blank=True)
    error = serializers.CharField(allow_null=True)
    note = serializers.CharField(allow_null=True)
    created = serializers.DateTimeField()
    output = serializers.JSONField(
        allow_null=True, help_text="The analysis output JSON (contract) when done."
    )


class AnalysisRunSerializer(RunFieldsSerializer):
    """`analysis.api.run_data`."""

    results = serializers.IntegerField()
    exploratory = serializers.BooleanField()
    seed = serializers.IntegerField(allow_null=True)
    attempt = serializers.IntegerField()


class AcceptedSerializer(serializers.Serializer):
    """202: the run is queued; follow its id."""

    id = serializers.IntegerField()
    status = serializers.CharField()
    detail = serializers.CharField(required=False)


class AcceptedWhileDownSerializer(serializers.Serializer):
    """202 while the database is down: the start is spooled, not yet checked;
    follow ``check`` (also the Location header)."""

    status = serializers.ChoiceField(choices=["accepted"])
    request = serializers.UUIDField()
    detail = serializers.CharField()
    check = serializers.CharField()


class StartRequestSerializer(serializers.Serializer):
    """A start accepted while the database was down: pending (still spooled),
    started (``run``) or refused (``detail`` says why)."""

    request = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["pending", "started", "refused"])
    run = serializers.IntegerField(allow_null=True)
    detail = serializers.CharField()


class DeviationSerializer(serializers.Serializer):
    """`analysis.deviations.Deviation.to_dict`."""

    code = serializers.CharField()
    severity = serializers.ChoiceField(choices=["critical", "warning", "info"])
    message = serializers.CharField()
    registered = serializers.JSONField(allow_null=True)
    observed = serializers.JSONField(allow_null=True)
    task = serializers.CharField(allow_null=True)
    evidence = serializers.JSONField(allow_null=True)


class ResultsStoredSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    sha256 = serializers.CharField()
    version = serializers.IntegerField()
    rows = serializers.IntegerField()


class DuplicateResultsSerializer(ResultsStoredSerializer):
    """409: the same file is stored already as `version`."""

    detail = serializers.CharField()
    rows = None


class KeyReusedSerializer(serializers.Serializer):
    """422: the Idempotency-Key was used for another file."""

    detail = serializers.CharField()
    version = serializers.IntegerField()


class AnalysisRequestSerializer(serializers.Serializer):
    """Optional: exploratory schemes instead of the registered one."""

    scheme = serializers.JSONField(required=False, help_text="One ranking scheme.")
    schemes = serializers.JSONField(required=False, help_text="Schemes by task.")


class FindingSerializer(serializers.Serializer):
    code = serializers.CharField()
    severity = serializers.CharField()
    message = serializers.CharField()
    task = serializers.CharField(allow_null=True)


class PreviewSerializer(serializers.Serializer):
    """200 without ``commit``: what the table holds against the design
    (`analysis.ingest.Preview.to_dict`); nothing is stored."""

    rows = serializers.IntegerField()
    tasks = serializers.DictField(
        child=serializers.DictField(), help_text="cases, algorithms, metrics, missing"
    )
    findings = FindingSerializer(many=True)


class NotReadySerializer(serializers.Serializer):
    """409: the run has no output or report yet; its status says why."""

    detail = serializers.CharField()


NOT_READY = NotReadySerializer


class TablesSerializer(serializers.Serializer):
    """`analysis.reports.data.report_tables`: each table as rows."""

    rankings = serializers.ListField(child=serializers.DictField())
    target_rankings = serializers.ListField(child=serializers.DictField())
    consensus = serializers.ListField(child=serializers.DictField())
    descriptive_statistics = serializers.ListField(
        child=serializers.DictField(), required=False
    )


TABLES = TablesSerializer


# Multipart bodies, as schemas: a serializer's FileField would be declared a
# URI (drf-spectacular splits request components only when told to globally).
FILE = {"type": "string", "format": "binary"}
RESULTS_UPLOAD = {
    "type": "object",
    "properties": {
        "file": {**FILE, "description": "The results table (CSV or XLSX)."},
        "teams": {
            "type": "string",
            "description": 'A JSON object {"team": "institution"}.',
        },
    },
    "required": ["file"],
}
TABLE_UPLOAD = {
    "type": "object",
    "properties": {"file": FILE},
    "required": ["file"],
}
